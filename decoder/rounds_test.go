package decoder

import (
	"testing"

	"toolscope/model"
)

// An answer asking for input is judged as one: no result_malformed for the
// content it does not have, and what it asks summarised for the screen.
func TestInputRequiredSummary(t *testing.T) {
	s, ws := summarize([]byte(`{"resultType":"input_required","requestState":"s","inputRequests":{
		"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}},
		"draft":{"method":"sampling/createMessage","params":{"maxTokens":50,"messages":[{"role":"user","content":{"type":"text","text":"write it"}}]}},
		"where":{"method":"roots/list"}}}`))
	if len(ws) != 0 {
		t.Fatalf("warnings on an input_required answer: %v", ws)
	}
	if s.ResultType != model.ResultInputRequired || len(s.InputRequests) != 3 {
		t.Fatalf("%+v", s)
	}
	want := []model.InputRequest{
		{ID: "confirm", Method: model.InputElicit, Message: "Deploy to prod?"},
		{ID: "draft", Method: model.InputSample, Message: `1 message, up to 50 tokens: "write it"`},
		{ID: "where", Method: model.InputRoots},
	}
	for i, w := range want {
		got := s.InputRequests[i]
		if got.ID != w.ID || got.Method != w.Method || got.Message != w.Message {
			t.Errorf("request %d: %+v, want %+v", i, got, w)
		}
	}
	if string(s.InputRequests[0].RequestedSchema) != `{"type":"object","properties":{"ok":{"type":"boolean"}}}` {
		t.Errorf("schema %s", s.InputRequests[0].RequestedSchema)
	}
	var ev model.Event
	s.ApplyTo(&ev)
	if ev.ResultType != model.ResultInputRequired || len(ev.InputRequests) != 3 {
		t.Fatalf("%+v", ev)
	}
	// A complete answer without content is still malformed.
	if _, ws := summarize([]byte(`{"resultType":"complete"}`)); codesOf(ws) != string(model.WarnResultMalformed) {
		t.Fatalf("%v", ws)
	}
}
