package otlp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/demo"
	"toolscope/model"
)

// The demo end to end (what `toolscope demo --otlp URL` exports): its
// platform sends a traceparent per task, the tap reads it from _meta, and
// every span of a task's calls is a child of that span, in its trace; the
// tap's and the feed's views of an attempt are one span.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo (about 7 s)")
	}
	c := newCollector(t)
	e, w := newTestExporter(t, c.URL, nil)
	store := model.NewStore(model.Options{})
	var mu sync.Mutex
	traceparents := map[string]string{} // task id → the traceparent its calls carried
	sink := model.SinkFunc(func(ev model.Event) {
		if ev.Kind == model.KindToolCall && ev.TraceParent != "" {
			mu.Lock()
			traceparents[ev.TaskID] = ev.TraceParent
			mu.Unlock()
		}
		if store.Apply(ev) { // the output fan-out passes on what the store took
			e.Emit(ev)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := demo.Run(ctx, demo.Options{Speed: 10}, sink); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	attempts := 0
	for _, call := range store.Snapshot().Calls {
		attempts += len(call.Attempts)
	}
	if len(spans) != attempts {
		t.Errorf("%d spans, the store has %d attempts", len(spans), attempts)
	}
	children := 0
	for _, s := range spans {
		task, _ := attr(s.Attributes, "agentarea.task.id")
		tp := traceparents[task.GetStringValue()]
		if tp == "" {
			continue // the SOAT scenario's calls carry no AgentArea context
		}
		parts := strings.Split(tp, "-")
		if hexID(s.TraceId) != parts[1] || hexID(s.ParentSpanId) != parts[2] {
			t.Errorf("%s of task %s: trace %s parent %s, want %s", s.Name, task.GetStringValue(), hexID(s.TraceId), hexID(s.ParentSpanId), tp)
		}
		children++
	}
	if children < 10 || len(traceparents) < 3 {
		t.Errorf("%d spans under %d tasks' traceparents", children, len(traceparents))
	}
	if len(w.list()) != 0 {
		t.Errorf("warnings %v", w.list())
	}
	t.Logf("%d spans, %d under the traceparents of %d tasks", len(spans), children, len(traceparents))
}
