package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// roundsStore holds one call waiting for the client's input after two
// rounds: the server asked to confirm, then for the client's roots.
func roundsStore() *model.Store {
	store := model.NewStore(model.Options{})
	base := model.Event{Source: model.SourceTap, SourceName: "tap:orders", Tool: "deploy", Exchange: "2"}
	ev := func(ms int, kind model.Kind, f func(*model.Event)) model.Event {
		e := base
		e.Time, e.Kind = at(ms), kind
		f(&e)
		return e
	}
	for _, e := range []model.Event{
		ev(0, model.KindToolCall, func(e *model.Event) { e.RequestID, e.Arguments = "5", []byte(`{"env":"prod"}`) }),
		ev(40, model.KindToolResult, func(e *model.Event) {
			e.Round, e.ResultType = 1, model.ResultInputRequired
			e.InputRequests = []model.InputRequest{{ID: "confirm", Method: model.InputElicit, Message: "Deploy to prod?",
				RequestedSchema: []byte(`{"type":"object","properties":{"note":{"type":"string"}}}`)}}
		}),
		ev(1040, model.KindToolCall, func(e *model.Event) {
			e.RequestID, e.Round, e.InputResponses = "6", 2, []byte(`{"confirm":{"action":"accept"}}`)
		}),
		ev(1100, model.KindToolResult, func(e *model.Event) {
			e.Round, e.ResultType = 2, model.ResultInputRequired
			e.InputRequests = []model.InputRequest{{ID: "where", Method: model.InputRoots}}
		}),
	} {
		store.Apply(e)
	}
	return store
}

// A call waiting for input: its row says needs input, what was asked and
// its round; its detail the rounds, the answers and the time split.
func TestNeedsInputOnScreen(t *testing.T) {
	m := sized(roundsStore(), Options{Now: fixedClock})
	send(m, frameMsg{})
	screen := ansi.Strip(m.View())
	for _, want := range []string{"needs input", "~ asked roots", "round 2", "1 need input"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the table lacks %q:\n%s", want, screen)
		}
	}
	send(m, keyMsgs("<enter>")...)
	if m.mode != modeDetail {
		t.Fatal("enter did not open the call")
	}
	detail := ansi.Strip(m.detail.renderDetail(m.detail.call))
	for _, want := range []string{"ROUNDS  2 · 100ms in the server", "waiting for the client's input",
		"#1 · id 5", "the server asked confirm · elicitation", "Deploy to prod?", "requested schema", `"note"`,
		"#2 · id 6", "after 1.0s waiting", "the client answered", `"accept"`, "the server asked where · roots",
		"waiting for round 3"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the detail lacks %q:\n%s", want, detail)
		}
	}
}

// In the task view a call waiting for input is under way: counted running,
// not failed, and the task's NOW says what it asked.
func TestNeedsInputInTasks(t *testing.T) {
	var x taskIndex
	x.build(roundsStore().Snapshot())
	if len(x.rows) != 1 {
		t.Fatalf("%d task rows", len(x.rows))
	}
	r := x.rows[0]
	if r.running != 1 || r.failed != 0 || r.done != 0 || r.state != taskRunning || r.now == nil || r.now.Status != model.StatusNeedsInput {
		t.Fatalf("row %+v", r)
	}
}
