package ui

import (
	"bytes"
	"strings"
	"testing"
)

// TestDetailCountsWhole: a notification's progress/total is never cut while
// the line has room (it was "1800/270…" in a 9-cell column).
func TestDetailCountsWhole(t *testing.T) {
	store := demoStore(t)
	opts := Options{Title: "demo", Now: fixedClock, SessionClock: true, Clipboard: &bytes.Buffer{}}
	for _, c := range store.Snapshot().Calls {
		if c.Tool == "export_ledger" {
			opts.OpenCall = c.ID
		}
	}
	for _, w := range []int{80, 120} {
		fm, _ := runScreen(t, store, opts, w, 200)
		view := fm.View()
		checkFrame(t, view, w, 200)
		if strings.Contains(view, "…") && strings.Contains(view, "/270…") {
			t.Errorf("at %d columns a count is cut:\n%s", w, view)
		}
		if !strings.Contains(view, "18000/27000 ") {
			t.Errorf("at %d columns 18000/27000 is not whole:\n%s", w, view)
		}
	}
}
