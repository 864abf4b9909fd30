package otlp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

func callStart(i int) model.Event {
	id := fmt.Sprint(i)
	return model.Event{Time: at(i), Source: model.SourceTap, SourceName: "tap:x", Kind: model.KindToolCall,
		Tool: "slow", Exchange: id, RequestID: id}
}

// Calls that never end are let go past MaxCalls, exported as unfinished;
// the table never holds more.
func TestCallsNeverEndingAreBounded(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, func(cfg *Config) { cfg.MaxCalls = 10 })
	for i := range 100 {
		e.Emit(callStart(i))
		e.mu.Lock()
		n := e.calls.recent.Len()
		keys := len(e.calls.byKey)
		e.mu.Unlock()
		if n > 10 || keys > 10 {
			t.Fatalf("after %d calls the table holds %d calls, %d keys", i+1, n, keys)
		}
	}
	e.Flush(context.Background())
	if got := len(c.all()); got != 90 {
		t.Errorf("%d spans before Close, want the 90 let go", got)
	}
	e.Close()
	spans := c.all()
	if len(spans) != 100 {
		t.Fatalf("%d spans, want 100", len(spans))
	}
	for _, s := range spans {
		if !boolAttr(t, s.Attributes, "toolscope.unfinished") || s.EndTimeUnixNano != s.StartTimeUnixNano {
			t.Fatalf("span %s: want unfinished, ended at its last event", s.Name)
		}
	}
}

// A call that saw nothing for MaxIdle is let go.
func TestIdleCallIsLetGo(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, func(cfg *Config) { cfg.MaxIdle = time.Minute })
	var mu sync.Mutex
	now := time.Now()
	e.mu.Lock()
	e.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e.mu.Unlock()
	e.Emit(callStart(1))
	e.Flush(context.Background())
	if len(c.all()) != 0 {
		t.Fatal("a running call was exported")
	}
	mu.Lock()
	now = now.Add(time.Minute + time.Second)
	mu.Unlock()
	e.Flush(context.Background())
	if len(c.all()) != 1 || !boolAttr(t, c.all()[0].Attributes, "toolscope.unfinished") {
		t.Fatalf("idle call not let go: %v", c.all())
	}
	e.Close()
	if len(c.all()) != 1 {
		t.Errorf("%d spans after Close, want 1", len(c.all()))
	}
}

// A long call keeps its first and latest progress events, and says how
// many it left out.
func TestProgressEventsAreBounded(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	e.Emit(callStart(0))
	for i := 1; i <= 1000; i++ {
		ev := callStart(0)
		ev.Kind, ev.Time, ev.Progress = model.KindToolProgress, at(i), float64(i)
		e.Emit(ev)
	}
	end := callStart(0)
	end.Kind, end.Time = model.KindToolResult, at(1001)
	e.Emit(end)
	e.Close()
	s := c.all()[0]
	if len(s.Events) != maxSpanEvents {
		t.Fatalf("%d events, want %d", len(s.Events), maxSpanEvents)
	}
	first, _ := attr(s.Events[0].Attributes, "toolscope.progress.value")
	last, _ := attr(s.Events[maxSpanEvents-1].Attributes, "toolscope.progress.value")
	if first.GetDoubleValue() != 1 || last.GetDoubleValue() != 1000 {
		t.Errorf("kept %v..%v, want 1..1000", first, last)
	}
	if got := intAttr(t, s.Attributes, "toolscope.events.dropped"); got != 1000-maxSpanEvents {
		t.Errorf("dropped %d", got)
	}
	if got := intAttr(t, s.Attributes, "toolscope.progress.sent_count"); got != 1000 {
		t.Errorf("sent_count %d", got)
	}
}

// A feed event delivered twice (same event_id) counts once.
func TestDuplicateFeedEventCountsOnce(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	feed := func(kind model.Kind, id string, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceFeed, SourceName: "feed:x", Kind: kind, EventID: id,
			TaskID: "t", ToolCallID: "c", Tool: "mcp__s__tool", Progress: 1}
	}
	for _, ev := range []model.Event{feed(model.KindToolCall, "e1", 0), feed(model.KindToolProgress, "e2", 1),
		feed(model.KindToolProgress, "e2", 1), feed(model.KindToolResult, "e3", 2)} {
		e.Emit(ev)
	}
	e.Close()
	s := c.all()[0]
	if got := intAttr(t, s.Attributes, "toolscope.progress.relayed_count"); got != 1 || len(s.Events) != 1 {
		t.Errorf("relayed_count %d, %d events: a duplicate counted", got, len(s.Events))
	}
}

// A warning about an exchange that carries no call (a token on tools/list)
// makes no span.
func TestWarningAloneMakesNoSpan(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	e.Emit(model.Event{Time: at(0), Source: model.SourceTap, SourceName: "tap:x", Kind: model.KindWarning,
		Exchange: "9", Code: "context_on_other_method", Message: "a token on tools/list"})
	e.Close()
	if len(c.all()) != 0 {
		t.Fatalf("%d spans for a warning alone", len(c.all()))
	}
}

// A feed alone announces a call once and reports the attempt that answered:
// one span from the tool.call to that result, with its attempt number.
func TestFeedOnlyRetryIsOneSpan(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	feed := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceFeed, SourceName: "feed:x", Kind: kind,
			TaskID: "t", ToolCallID: "c", Tool: "mcp__s__post"}
	}
	res := feed(model.KindToolResult, 2500)
	res.Attempt, res.Replayed = 2, true
	for _, ev := range []model.Event{feed(model.KindToolCall, 0), feed(model.KindToolProgress, 100), res} {
		e.Emit(ev)
	}
	e.Close()
	spans := c.all()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if intAttr(t, s.Attributes, "agentarea.attempt") != 2 || s.StartTimeUnixNano != uint64(at(0).UnixNano()) ||
		s.EndTimeUnixNano != uint64(at(2500).UnixNano()) {
		t.Errorf("attempt %d from %d to %d", intAttr(t, s.Attributes, "agentarea.attempt"), s.StartTimeUnixNano, s.EndTimeUnixNano)
	}
	if _, unfinished := attr(s.Attributes, "toolscope.unfinished"); unfinished {
		t.Error("unfinished")
	}
}
