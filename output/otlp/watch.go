package otlp

import (
	"context"
	"fmt"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"toolscope/model"
)

// watchedExporter is the OTLP exporter with its failures seen: the first
// failure of an outage is reported once; a success ends the outage. Each
// change of the export's state (connected, failing) is reported too.
type watchedExporter struct {
	sdktrace.SpanExporter
	onFailure func(msg string)
	onState   func(state, detail string)
	endpoint  string // as messages show it

	mu      sync.Mutex
	failing bool   // an outage: exports fail since the last that succeeded
	state   string // the state last reported
	// failures and exported count batches.
	failures, exported int
}

// ExportSpans sends one batch; a failure is reported, never returned to the
// SDK's error handler (which would print over the TUI).
func (w *watchedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := w.SpanExporter.ExportSpans(ctx, spans)
	w.mu.Lock()
	if err == nil {
		first := w.exported == 0
		w.failing = false
		w.exported++
		w.mu.Unlock()
		if first || w.setState(model.StateConnected) {
			w.onState(model.StateConnected, "exporting to "+w.endpoint)
		}
		return nil
	}
	w.failures++
	first := !w.failing
	w.failing = true
	w.mu.Unlock()
	if first {
		why := w.cleanError(err)
		if w.setState(model.StateFailing) {
			w.onState(model.StateFailing, "export to "+w.endpoint+": "+why)
		}
		w.onFailure(fmt.Sprintf("OpenTelemetry export to %s failed: %s (%d spans dropped; monitoring goes on, said once until an export succeeds)",
			w.endpoint, why, len(spans)))
	}
	return err
}

// setState records the state to report; it says whether it changed.
func (w *watchedExporter) setState(state string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := w.state != state
	w.state = state
	return changed
}

// checked reports what a connection to the collector found at start,
// unless an export has said more already.
func (w *watchedExporter) checked(err error) {
	w.mu.Lock()
	said := w.state != ""
	if !said {
		w.state = model.StateConnected
		if err != nil {
			w.state = model.StateFailing
		}
	}
	w.mu.Unlock()
	switch {
	case said:
	case err != nil:
		w.onState(model.StateFailing, "export to "+w.endpoint+": "+w.cleanError(err))
	default:
		w.onState(model.StateConnected, "the collector at "+w.endpoint+" accepts connections; spans go as calls end")
	}
}

// counts returns the failed and successful exports so far.
func (w *watchedExporter) counts() (failures, exported int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failures, w.exported
}

// cleanError is the error as a warning may show it: one line, sanitised,
// short. (The URL it may name reaches the screen and the lines through
// the hub, which redacts its credentials.)
func (w *watchedExporter) cleanError(err error) string {
	return model.Clip(err.Error(), 300)
}
