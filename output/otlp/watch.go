package otlp

import (
	"context"
	"fmt"
	"strings"
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
// short, and without the URL's credentials (the SDK's messages name the URL).
func (w *watchedExporter) cleanError(err error) string {
	s := err.Error()
	if i := strings.Index(s, "://"); i >= 0 {
		// Cut any URL the message repeats down to the redacted endpoint.
		s = redactURLs(s, w.endpoint)
	}
	return truncateRunes(model.Sanitize(s), 300)
}

// redactURLs replaces every http(s) URL in s by the shown endpoint.
func redactURLs(s, shown string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "http")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i:]
		if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") {
			b.WriteString(s[:i+4])
			s = s[i+4:]
			continue
		}
		end := strings.IndexAny(rest, " \"'\n\t)")
		if end < 0 {
			end = len(rest)
		}
		b.WriteString(s[:i])
		b.WriteString(shown)
		s = rest[end:]
	}
}
