package ui

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// TestCopyMessageKeepsTheFooter: what `y` did shows on the status line, not
// in the footer, so no key leaves it; it goes after a few seconds, paused
// or not.
func TestCopyMessageKeepsTheFooter(t *testing.T) {
	now := fixedNow
	opts := testOptions(&bytes.Buffer{})
	opts.Now = func() time.Time { return now }
	opts.CopyDir = filepath.Join(t.TempDir(), "copies") // made private by y
	for _, w := range []int{80, 120} {
		m := newModel(fixtureStore(), opts)
		send(m, tea.WindowSizeMsg{Width: w, Height: 24})
		footer := lastLine(m.View())
		send(m, keyMsgs("p")...) // a message shows while paused too
		send(m, send(m, keyMsgs("y")...)())
		view := m.View()
		checkFrame(t, view, w, 24)
		words := strings.Join(strings.Fields(view), " ")
		if !strings.Contains(words, "y: saved") || !strings.Contains(words, "/call_esc") || strings.Contains(words, "copied") {
			t.Errorf("%d columns: the message does not say what y did:\n%s", w, view)
		}
		if got := lastLine(view); got != footer {
			t.Errorf("%d columns: the footer changed with the message:\n%q\n%q", w, footer, got)
		}
		now = now.Add(flashFor + time.Second)
		send(m, frameMsg{})
		if strings.Contains(m.View(), "y: saved") {
			t.Errorf("%d columns: the message stays", w)
		}
		now = fixedNow
	}
}
