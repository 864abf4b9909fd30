package otlp

import (
	"testing"

	"toolscope/model"
)

// A multi-round call is one span, from its first request to its last
// answer, with an event per round: round 1 asked for input, round 2 ended it.
func TestMultiRoundCallIsOneSpan(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	ev := func(kind model.Kind, ms int, round int32, f func(*model.Event)) model.Event {
		x := model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:orders", Kind: kind,
			Tool: "deploy", Exchange: "2", RequestID: "5", Round: round}
		if f != nil {
			f(&x)
		}
		return x
	}
	for _, x := range []model.Event{
		ev(model.KindToolCall, 0, 0, nil),
		ev(model.KindToolResult, 40, 1, func(x *model.Event) {
			x.ResultType = model.ResultInputRequired
			x.InputRequests = []model.InputRequest{{ID: "confirm", Method: model.InputElicit, Message: "Deploy to prod?"}}
		}),
		ev(model.KindToolCall, 1040, 2, func(x *model.Event) { x.RequestID = "6" }),
		ev(model.KindToolResult, 1100, 2, func(x *model.Event) { x.RequestID, x.ResultType, x.TextChars = "6", "complete", 8 }),
	} {
		e.Emit(x)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want one for the call's two rounds", len(spans))
	}
	s := spans[0]
	if s.StartTimeUnixNano != uint64(at(0).UnixNano()) || s.EndTimeUnixNano != uint64(at(1100).UnixNano()) {
		t.Errorf("span from %d to %d, want the first request to the last answer", s.StartTimeUnixNano, s.EndTimeUnixNano)
	}
	if got := intAttr(t, s.Attributes, "toolscope.rounds"); got != 2 {
		t.Errorf("toolscope.rounds = %d", got)
	}
	var rounds []string
	for _, x := range s.Events {
		if x.Name == "round" {
			rounds = append(rounds, strAttr(t, x.Attributes, "toolscope.round.result_type"))
		}
	}
	if len(rounds) != 2 || rounds[0] != "input_required" || rounds[1] != "complete" {
		t.Errorf("round events %v", rounds)
	}
	if strAttr(t, s.Events[0].Attributes, "toolscope.round.asked") != "elicitation: Deploy to prod?" {
		t.Errorf("round 1 event %v", s.Events[0].Attributes)
	}
}
