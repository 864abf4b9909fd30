package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// A recorded multi-round call plays back as one call of its rounds: the
// lines' call, round, input_requests and input_responses are read back.
func TestReplayOfAMultiRoundCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rounds.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := output.NewHub(model.NewStore(model.Options{}), output.NewWriter(f, output.WriterConfig{Name: "--record", Closer: f}))
	at := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	base := model.Event{Source: model.SourceTap, SourceName: "tap:orders", Tool: "deploy", Exchange: "2"}
	for i, f := range []func(*model.Event){
		func(e *model.Event) { e.Kind, e.RequestID = model.KindToolCall, "5" },
		func(e *model.Event) {
			e.Kind, e.Round, e.ResultType = model.KindToolResult, 1, model.ResultInputRequired
			e.InputRequests = []model.InputRequest{{ID: "confirm", Method: model.InputElicit, Message: "Deploy?"}}
		},
		func(e *model.Event) {
			e.Kind, e.RequestID, e.Round, e.InputResponses = model.KindToolCall, "6", 2, []byte(`{"confirm":{"action":"accept"}}`)
		},
		func(e *model.Event) {
			e.Kind, e.Round, e.ResultType, e.TextChars = model.KindToolResult, 2, "complete", 4
		},
	} {
		e := base
		e.Time = at.Add(time.Duration(i) * time.Second)
		f(&e)
		rec.Emit(e)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	store := model.NewStore(model.Options{})
	var got collect
	hub := output.NewHub(store)
	sink := model.SinkFunc(func(e model.Event) { got.Emit(e); hub.Emit(e) })
	if err := Run(context.Background(), path, Options{Speed: 0}, sink); err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for _, e := range got.evs {
		if e.Tool == "deploy" && e.Call != "tap:orders#2" {
			t.Errorf("line read back without its call: %+v", e)
		}
		rounds = max(rounds, int(e.Round))
	}
	snap := store.Snapshot()
	c := snap.FindCall("tap:orders#2")
	if len(snap.Calls) != 1 || c == nil || c.Status != model.StatusOK || c.Rounds() != 2 || rounds != 2 {
		t.Fatalf("%d calls, %+v", len(snap.Calls), c)
	}
	r := c.LastAttempt().Rounds
	if r[0].Asked[0].Message != "Deploy?" || string(r[1].Answers) != `{"confirm":{"action":"accept"}}` {
		t.Errorf("rounds %+v", r)
	}
	if server, waiting := c.RoundTimes(at); server != 2*time.Second || waiting != time.Second {
		t.Errorf("server %v, waiting %v", server, waiting)
	}
}
