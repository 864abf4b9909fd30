package otlp

import (
	"testing"

	"toolscope/model"
)

// TestPlainMCPSpanHasNoRelay: a tap's call without AgentArea context has
// nothing that relays its progress: no relayed_count on its span and no
// relayed on its progress events; the sent count stays.
func TestPlainMCPSpanHasNoRelay(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	tap := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:plain", Kind: kind,
			Tool: "count", Exchange: "4", RequestID: "2"}
	}
	call := tap(model.KindToolCall, 0)
	call.Context = &model.Context{Verdict: model.VerdictAbsent}
	e.Emit(call)
	for i := 1; i <= 3; i++ {
		p := tap(model.KindToolProgress, i*10)
		p.Progress, p.Total = float64(i), total(3)
		e.Emit(p)
	}
	e.Emit(tap(model.KindToolResult, 40))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if _, ok := attr(s.Attributes, "toolscope.progress.relayed_count"); ok {
		t.Error("relayed_count on a plain MCP call")
	}
	if intAttr(t, s.Attributes, "toolscope.progress.sent_count") != 3 {
		t.Errorf("sent_count %d", intAttr(t, s.Attributes, "toolscope.progress.sent_count"))
	}
	progress := 0
	for _, ev := range s.Events {
		if ev.Name != "progress" {
			continue
		}
		progress++
		if _, ok := attr(ev.Attributes, "toolscope.progress.relayed"); ok {
			t.Errorf("progress event with relayed: %v", ev.Attributes)
		}
	}
	if progress != 3 {
		t.Errorf("%d progress events", progress)
	}
}
