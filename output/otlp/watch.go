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
