package otlp

import (
	"context"
	"fmt"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"toolscope/model"
)

// watchedExporter is the OTLP exporter with its failures seen: the first
// failure of an outage is reported once; a success ends the outage.
type watchedExporter struct {
	sdktrace.SpanExporter
	onFailure func(msg string)
	endpoint  string // as messages show it

	mu      sync.Mutex
	failing bool
	// failures and exported count batches.
	failures, exported int
}

// ExportSpans sends one batch; a failure is reported, never returned to the
// SDK's error handler (which would print over the TUI).
func (w *watchedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := w.SpanExporter.ExportSpans(ctx, spans)
	w.mu.Lock()
	if err == nil {
		w.failing = false
		w.exported++
		w.mu.Unlock()
		return nil
	}
	w.failures++
	first := !w.failing
	w.failing = true
	w.mu.Unlock()
	if first {
		w.onFailure(fmt.Sprintf("OpenTelemetry export to %s failed: %s (%d spans dropped; monitoring goes on, said once until an export succeeds)",
			w.endpoint, w.cleanError(err), len(spans)))
	}
	return err
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
	return truncateRunes(model.Sanitize(err.Error()), 300)
}
