package tap

import (
	"testing"

	"toolscope/model"
)

// The tool.call event carries _meta's W3C trace context (OpenTelemetry
// export makes the call's span a child of it).
func TestToolCallCarriesTraceContext(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	h := startTap(t, Config{Upstream: upstream.URL})
	meta := contractMeta("task-tp", "call-tp", 1)
	meta["traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	meta["tracestate"] = "rojo=00f067aa0ba902b7"
	post(t, h.url, callBody(t, 1, "lookup", map[string]any{}, meta), nil)
	h.waitCall("lookup")
	h.shutdown()
	for _, e := range allEvents(h.store.Snapshot()) {
		if e.Kind == model.KindToolCall {
			if e.TraceParent != meta["traceparent"] || e.TraceState != meta["tracestate"] {
				t.Fatalf("tool.call traceparent %q tracestate %q", e.TraceParent, e.TraceState)
			}
			return
		}
	}
	t.Fatal("no tool.call event")
}
