package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// TestEveryRowSaysWhy: at 80 columns and up, a failed, cancelled, late or
// rejected row keeps its cause readable on the row, the most specific
// first (the token's reason, not the platform's generic words), and the
// status line says the selected row's cause whole.
func TestEveryRowSaysWhy(t *testing.T) {
	rows := map[string]string{
		"delete_user": "token expired", // the token's reason over "context token expired"
		"long_report": "user stopped the task",
		"slow_query":  "result after 12s",
	}
	for _, w := range []int{80, 120, 160} {
		m := newModel(fixtureStore(), testOptions(nil))
		send(m, tea.WindowSizeMsg{Width: w, Height: 30})
		for _, line := range strings.Split(ansi.Strip(m.View()), "\n") {
			for tool, cause := range rows {
				if strings.Contains(line, tool) && !strings.Contains(line, cause) {
					t.Errorf("%d columns: the %s row lacks %q: %q", w, tool, cause, line)
				}
			}
		}
	}
	// The demo's rejected calls: the token's failed step on the row.
	m := newModel(demoStore(t), Options{Title: "demo", Now: fixedClock, SessionClock: true})
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	view := ansi.Strip(m.View())
	if !strings.Contains(view, `wrong aud "`) || strings.Contains(view, "rejected the credentia") {
		t.Errorf("the rejected rows do not lead with the token's failed step:\n%s", view)
	}
	// The selected row's whole cause in the status line.
	send(m, keyMsgs("k", "k", "k")...)
	words := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if !strings.Contains(words, "(the HS256 signature itself is valid)") {
		t.Errorf("the status line does not say the whole cause:\n%s", m.View())
	}
}
