package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// A multi-round call waiting for the client's input: list_calls says its
// status and rounds, get_call its rounds (what the server asked, what the
// client answered) and the time split.
func TestMultiRoundCallServed(t *testing.T) {
	store := model.NewStore(model.Options{})
	at := time.Now().UTC().Add(-2 * time.Second)
	base := model.Event{Source: model.SourceTap, SourceName: "tap:orders", Tool: "deploy", Exchange: "2"}
	ev := func(ms int, kind model.Kind, f func(*model.Event)) model.Event {
		e := base
		e.Time, e.Kind = at.Add(time.Duration(ms)*time.Millisecond), kind
		f(&e)
		return e
	}
	for _, e := range []model.Event{
		ev(0, model.KindToolCall, func(e *model.Event) { e.RequestID = "5" }),
		ev(40, model.KindToolResult, func(e *model.Event) {
			e.Round, e.ResultType = 1, model.ResultInputRequired
			e.InputRequests = []model.InputRequest{{ID: "confirm", Method: model.InputElicit, Message: "Deploy to prod?"}}
		}),
		ev(1000, model.KindToolCall, func(e *model.Event) {
			e.RequestID, e.Round, e.InputResponses = "6", 2, []byte(`{"confirm":{"action":"accept"}}`)
		}),
		ev(1040, model.KindToolResult, func(e *model.Event) {
			e.RequestID, e.Round, e.ResultType = "6", 2, model.ResultInputRequired
			e.InputRequests = []model.InputRequest{{ID: "where", Method: model.InputRoots}}
		}),
	} {
		store.Apply(e)
	}
	s, err := New(store, Config{Listen: "127.0.0.1:0", Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var list ListCallsOutput
	callTool(t, cs, "list_calls", map[string]any{"filter": "status:needs-input"}, &list)
	if len(list.Calls) != 1 || list.Calls[0].Status != "needs input" || list.Calls[0].Rounds != 2 || list.Calls[0].ID != "tap:orders#2" {
		t.Fatalf("list_calls: %+v", list.Calls)
	}
	var doc model.CallJSON
	callTool(t, cs, "get_call", map[string]any{"id": "tap:orders#2"}, &doc)
	if len(doc.Attempts) != 1 || len(doc.Attempts[0].Rounds) != 2 || doc.ServerMS != 80 || doc.WaitingMS < 1900 {
		t.Fatalf("get_call: %+v", doc)
	}
	r1, r2 := doc.Attempts[0].Rounds[0], doc.Attempts[0].Rounds[1]
	if r1.Asked[0].Message != "Deploy to prod?" || string(r2.Answers) != `{"confirm":{"action":"accept"}}` || r2.Asked[0].Method != model.InputRoots {
		t.Fatalf("rounds %+v %+v", r1, r2)
	}
	var x model.Explanation
	callTool(t, cs, "explain_call", map[string]any{"id": "tap:orders#2"}, &x)
	if len(x.Findings) == 0 || !strings.Contains(x.Findings[len(x.Findings)-1].What, "(roots) and waits for round 3") {
		t.Errorf("explain_call of the waiting call: %+v", x)
	}

	// The client answers, the call ends: explain_call says its rounds.
	store.Apply(ev(1500, model.KindToolCall, func(e *model.Event) {
		e.RequestID, e.Round, e.InputResponses = "7", 3, []byte(`{"where":{"roots":[{"uri":"file:///srv"}]}}`)
	}))
	store.Apply(ev(1530, model.KindToolResult, func(e *model.Event) { e.RequestID, e.Round, e.TextChars = "7", 3, 8 }))
	for deadline := time.Now().Add(5 * time.Second); x.Status != model.StatusOK && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		callTool(t, cs, "explain_call", map[string]any{"id": "tap:orders#2"}, &x) // the server reads the store every Poll
	}
	want := "the call took 3 rounds (110ms in the server, 1.4s waiting for the client's input); round 1: the server asked " +
		"(elicitation: Deploy to prod?), the client answered accept; round 2: the server asked (roots), the client answered its roots"
	if x.Status != model.StatusOK || len(x.Findings) == 0 || x.Findings[len(x.Findings)-1].What != want {
		t.Errorf("explain_call of the ended call: %+v", x)
	}
}
