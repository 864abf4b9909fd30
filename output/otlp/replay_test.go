package otlp

import (
	"bufio"
	"os"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// A recording replayed through the exporter (as `toolscope replay --otlp`
// feeds it) gives one span per attempt the store counts, with the store's
// verdict on each call.
func TestRecordingReplayedMakesSpans(t *testing.T) {
	f, err := os.Open(modeltest.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := newCollector(t)
	e, w := newTestExporter(t, c.URL, nil)
	store := model.NewStore(model.Options{})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		ev, err := output.DecodeLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		store.Apply(ev)
		e.Emit(ev)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	snap := store.Snapshot()
	want := 0
	for _, call := range snap.Calls {
		want += len(call.Attempts)
		var mine []*tracepb.Span
		if call.ToolCallID == "" { // a tap's call without AgentArea ids: its exchanges
			for _, a := range call.Attempts {
				mine = append(mine, spansWhere(spans, "toolscope.exchange", a.Exchange)...)
			}
		}
		for _, s := range spansWhere(spans, "gen_ai.tool.call.id", call.ToolCallID) {
			if strAttr(t, s.Attributes, "agentarea.task.id") == call.TaskID {
				mine = append(mine, s)
			}
		}
		if len(mine) != len(call.Attempts) {
			t.Errorf("call %s (%s): %d spans, the store has %d attempts", call.ID, call.Tool, len(mine), len(call.Attempts))
			continue
		}
		last := mine[0]
		for _, s := range mine {
			if intAttr(t, s.Attributes, "agentarea.attempt") > intAttr(t, last.Attributes, "agentarea.attempt") {
				last = s
			}
		}
		failed := call.Status == model.StatusError || call.Status == model.StatusCancelled
		if got := last.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR; got != failed {
			t.Errorf("call %s (%s) is %s, its last span's status %v", call.ID, call.Tool, call.Status, last.Status)
		}
		if _, unfinished := attr(last.Attributes, "toolscope.unfinished"); unfinished != (call.Status == model.StatusRunning) {
			t.Errorf("call %s is %s, unfinished=%v", call.ID, call.Status, unfinished)
		}
	}
	if len(spans) != want || want == 0 {
		t.Errorf("%d spans, want %d (one per attempt of %d calls)", len(spans), want, len(snap.Calls))
	}
	if len(w.list()) != 0 {
		t.Errorf("warnings %v", w.list())
	}
	t.Logf("%d calls, %d spans", len(snap.Calls), len(spans))
}
