package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// TestEventLogWrapsLongLines: a status line's reason, at its end, is shown
// whole at 80 columns, wrapped under its time stamp, and the log is in time
// order whatever order the sources reported in.
func TestEventLogWrapsLongLines(t *testing.T) {
	store := model.NewStore(model.Options{})
	reason := "feed http://127.0.0.1:18080/v1/workspaces/acme/agents/a1/tasks/6f1c/events/stream: HTTP 401 Unauthorized (check AGENTAREA_API_KEY)"
	store.Apply(model.Event{Time: at(2000), Source: model.SourceFeed, SourceName: "6f1c", Kind: model.KindSourceStatus,
		State: model.StateFailed, Detail: reason})
	store.Apply(model.Event{Time: at(1000), Source: model.SourceFeed, SourceName: "6f1c", Kind: model.KindSourceStatus,
		State: model.StateConnecting, Detail: "first"})
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	send(m, keyMsgs("l")...)
	view := m.View()
	checkFrame(t, view, 80, 24)
	words := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(words, "HTTP 401 Unauthorized (check AGENTAREA_API_KEY)") {
		t.Errorf("the log cuts the reason:\n%s", view)
	}
	if strings.Index(view, "state=connecting") > strings.Index(view, "state=failed") {
		t.Errorf("the log is not in time order:\n%s", view)
	}
}

// TestReconnectingSourceSaysWhy: with no call yet, a source that keeps
// failing to connect shows its attempt and last error in the table's place.
func TestReconnectingSourceSaysWhy(t *testing.T) {
	store := model.NewStore(model.Options{})
	store.Apply(model.Event{Time: at(0), Source: model.SourceFeed, SourceName: "6f1c", Kind: model.KindSourceStatus,
		State: model.StateReconnecting, Detail: "attempt 3 in 2s: dial tcp 127.0.0.1:9: connect: connection refused"})
	for _, w := range []int{80, 40} {
		m := newModel(store, testOptions(nil))
		send(m, tea.WindowSizeMsg{Width: w, Height: 15})
		view := m.View()
		checkFrame(t, view, w, 15)
		words := strings.Join(strings.Fields(view), " ")
		for _, want := range []string{"reconnecting", "connection refused"} {
			if !strings.Contains(words, want) {
				t.Errorf("at %d columns the screen lacks %q:\n%s", w, want, view)
			}
		}
	}
}

// TestHelpTakesTheScreenWhenShort: in a short terminal `?` shows the keys
// and the filter syntax instead of cutting them under a one-row table.
func TestHelpTakesTheScreenWhenShort(t *testing.T) {
	m := newModel(fixtureStore(), testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 80, Height: 15})
	send(m, keyMsgs("?")...)
	view := m.View()
	checkFrame(t, view, 80, 15)
	for _, want := range []string{"q quit", "filter tool:NAME", "-TERM negates"} {
		if !strings.Contains(view, want) {
			t.Errorf("help lacks %q:\n%s", want, view)
		}
	}
}

// TestFailedSourceUnderTheCalls: with calls on screen, a failed source's
// reason takes the lines the calls leave free.
func TestFailedSourceUnderTheCalls(t *testing.T) {
	store := fixtureStore()
	store.Apply(model.Event{Time: at(60000), Source: model.SourceFeed, SourceName: "task-7a2e", Kind: model.KindSourceStatus,
		State: model.StateFailed, Detail: "feed http://127.0.0.1:1/v1/tasks/7a2e/events/stream: HTTP 403 Forbidden"})
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	view := m.View()
	checkFrame(t, view, 80, 24)
	if !strings.Contains(view, "HTTP 403 Forbidden") || !strings.Contains(view, "get_order") {
		t.Errorf("the calls and the failed feed's reason should both show:\n%s", view)
	}
}
