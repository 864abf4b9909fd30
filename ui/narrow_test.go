package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"

	"toolscope/model"
)

// demoStore holds the events of one `toolscope demo --output json` run
// (testdata/demo_session.jsonl): fixture events, so its screens are golden.
func demoStore(t *testing.T) *model.Store {
	t.Helper()
	f, err := os.Open("testdata/demo_session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	store := model.NewStore(model.Options{})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e model.Event // a JSON line is model.Event's JSON
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		store.Apply(e)
	}
	return store
}

// demoVerdicts are what the demo's scenarios must show at every width.
var demoVerdicts = []string{"attempt 2", "replayed", "rejected 401", "rejected 403", "sc dropped"}

// demoTools are the demo's tool names, whole at 80 columns.
var demoTools = []string{"read_workbook", "scan_archive", "post_ledger_entry", "render_charts", "build_report",
	"validate_invoice", "export_ledger", "lookup_customer", "get_order"}

// TestDemoScreenNarrow: the demo's final screen at 80x24, 60x20 and 40x15
// keeps every verdict, the status of every call and the footer's `? help`;
// at 80 every tool name is whole.
func TestDemoScreenNarrow(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {60, 20}, {40, 15}} {
		t.Run(strconv.Itoa(sz[0])+"x"+strconv.Itoa(sz[1]), func(t *testing.T) {
			opts := Options{Title: "demo", Now: fixedClock, SessionClock: true, Clipboard: &bytes.Buffer{}}
			fm, _ := runScreen(t, demoStore(t), opts, sz[0], sz[1])
			view := fm.View()
			checkFrame(t, view, sz[0], sz[1])
			for _, want := range append(demoVerdicts, "? help") {
				if !strings.Contains(view, want) {
					t.Errorf("%q is not on screen", want)
				}
			}
			if sz[0] >= 80 {
				for _, tool := range demoTools {
					if !strings.Contains(view, tool+" ") {
						t.Errorf("tool name %q is not whole", tool)
					}
				}
			}
			teatest.RequireEqualOutput(t, []byte(view))
		})
	}
}

// demoExportLedger is the demo's store and options that open the detail of
// its export_ledger call (18000 of 27000 rows, then cancelled).
func demoExportLedger(t *testing.T) (*model.Store, Options) {
	store := demoStore(t)
	opts := Options{Title: "demo", Now: fixedClock, SessionClock: true, Clipboard: &bytes.Buffer{}}
	for _, c := range store.Snapshot().Calls {
		if c.Tool == "export_ledger" {
			opts.OpenCall = c.ID
		}
	}
	return store, opts
}

// TestDetailWrapsLongValues: at 60 columns a detail value wraps under
// itself instead of being cut at the edge.
func TestDetailWrapsLongValues(t *testing.T) {
	store, opts := demoExportLedger(t)
	fm, _ := runScreen(t, store, opts, 60, 40)
	view := fm.View()
	checkFrame(t, view, 60, 40)
	words := strings.Join(strings.Fields(view), " ")
	for _, want := range []string{`"Exported 18000 of 27000 rows"`, "mcp__demo_sheets__export_ledger"} {
		if !strings.Contains(words, want) {
			t.Errorf("the detail cuts %q:\n%s", want, view)
		}
	}
}

// TestDetailCountsWhole: a notification's progress/total is never cut while
// the line has room (it was "1800/270…" in a 9-cell column).
func TestDetailCountsWhole(t *testing.T) {
	store, opts := demoExportLedger(t)
	for _, w := range []int{80, 120} {
		fm, _ := runScreen(t, store, opts, w, 200)
		view := fm.View()
		checkFrame(t, view, w, 200)
		if strings.Contains(view, "/270…") || !strings.Contains(view, "18000/27000 ") {
			t.Errorf("at %d columns 18000/27000 is not whole:\n%s", w, view)
		}
	}
}
