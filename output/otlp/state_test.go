package otlp

import (
	"context"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// waitStates waits until the exporter reported n states.
func waitStates(t *testing.T, w *warnings, n int) []model.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(w.states()) < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s := w.states()
	if len(s) < n {
		t.Fatalf("%d states reported, want %d: %v", len(s), n, s)
	}
	return s
}

// The export's state is known from the first event, before any span is
// sent: failing with the reason when nothing listens, connected when the
// collector accepts connections; a first export then says connected.
func TestStateAtStart(t *testing.T) {
	e, w := newTestExporter(t, deadURL(t), nil)
	e.Emit(model.Event{Kind: model.KindSourceStatus, Source: model.SourceTap, SourceName: "tap:x", State: model.StateConnected})
	s := waitStates(t, w, 1)[0]
	if s.SourceName != "otlp" || s.State != model.StateFailing || !strings.Contains(s.Detail, "connection refused") ||
		!strings.Contains(s.Detail, "/v1/traces") {
		t.Errorf("collector down: %+v", s)
	}
	e.Close()

	c := newCollector(t)
	e, w = newTestExporter(t, c.URL, nil)
	e.Emit(model.Event{Kind: model.KindSourceStatus, Source: model.SourceTap, SourceName: "tap:x", State: model.StateConnected})
	if s := waitStates(t, w, 1)[0]; s.State != model.StateConnected || !strings.Contains(s.Detail, "accepts connections") {
		t.Errorf("collector up: %+v", s)
	}
	emitCalls(e, 2, 0)
	e.Flush(context.Background())
	if s := waitStates(t, w, 2)[1]; s.State != model.StateConnected || !strings.Contains(s.Detail, "exporting to") {
		t.Errorf("after the first export: %+v", s)
	}
	e.Close()
	if len(w.list()) != 0 {
		t.Errorf("warnings with the collector up: %v", w.list())
	}
}
