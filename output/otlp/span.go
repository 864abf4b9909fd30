package otlp

import (
	"cmp"
	"context"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"toolscope/model"
)

// Span and event names.
const (
	operationName      = "execute_tool"
	spanEventProgress  = "progress"
	spanEventWarning   = "warning"
	spanEventCancelled = "cancelled"
	spanEventRound     = "round"
	methodToolsCall    = "tools/call"
	errorTypeToolError = "tool_error"
)

// export makes and ends the span of one attempt, with the times it had on
// the wire. Spans are made one at a time (exportMu): an attempt links to
// the span of the one before it.
func (e *Exporter) export(a *attemptState) {
	e.exportMu.Lock()
	defer e.exportMu.Unlock()
	ctx := context.Background()
	if a.traceParent != "" {
		carrier := propagation.MapCarrier{"traceparent": a.traceParent}
		if a.traceState != "" {
			carrier["tracestate"] = a.traceState
		}
		ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	}
	opts := []trace.SpanStartOption{
		trace.WithTimestamp(a.startTime()),
		trace.WithSpanKind(trace.SpanKindInternal), // as GenAI's execute_tool span says
		trace.WithAttributes(a.attributes()...),
	}
	if prev := a.call.last; prev.IsValid() && a.n > 1 {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: prev,
			Attributes: []attribute.KeyValue{attribute.String("toolscope.link", "previous_attempt")}}))
	}
	_, span := e.tracer.Start(ctx, a.spanName(), opts...)
	hasTapProgress := a.sent > 0
	a.events.each(func(ev *spanEvent) {
		if ev.kind == eventProgress && hasTapProgress && !ev.fromTap {
			return // the feed's copy of a notification the tap saw
		}
		span.AddEvent(ev.name(), trace.WithTimestamp(ev.at), trace.WithAttributes(ev.attributes()...))
	})
	if msg, errType := a.failure(); msg != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		span.SetStatus(codes.Error, msg)
	}
	span.End(trace.WithTimestamp(a.endTime()))
	a.call.last = span.SpanContext()
}

func (a *attemptState) spanName() string {
	if a.tool == "" {
		return operationName
	}
	return operationName + " " + a.tool
}

// failure is the status message and error.type of an attempt that failed:
// a cancellation, a JSON-RPC error, an HTTP error, a denial, isError, a
// rejected context token. Empty when it did not.
func (a *attemptState) failure() (msg, errType string) {
	r := &a.result
	failed := a.hasResult && (r.IsError || r.Error != "" || r.RPCCode != 0 || r.HTTPStatus >= 400)
	switch {
	case a.cancelled != "" && (!a.hasResult || failed):
		if a.timedOut {
			return "cancelled: " + a.cancelled, "timeout"
		}
		return "cancelled: " + a.cancelled, "cancelled"
	case a.hasResult && r.RPCCode != 0:
		return cmp.Or(r.Error, "JSON-RPC error "+strconv.Itoa(r.RPCCode)), strconv.Itoa(r.RPCCode)
	case a.hasResult && r.HTTPStatus >= 400:
		return cmp.Or(r.Error, "HTTP "+strconv.Itoa(r.HTTPStatus)), strconv.Itoa(r.HTTPStatus)
	case a.hasResult && r.Denied != "":
		return cmp.Or(r.Error, "denied by "+r.Denied), "denied"
	case failed:
		return cmp.Or(r.Error, "isError: "+model.Truncate(r.TextPreview, previewBytes)), errorTypeToolError
	case a.context != nil && a.context.Verdict == model.VerdictRejected:
		return "context token rejected: " + model.Clip(a.context.Reason, maxMessageBytes), "context_rejected"
	}
	return "", ""
}

func (ev *spanEvent) name() string {
	switch ev.kind {
	case eventProgress:
		return spanEventProgress
	case eventWarning:
		return spanEventWarning
	case eventRound:
		return spanEventRound
	}
	return spanEventCancelled
}

func (ev *spanEvent) attributes() []attribute.KeyValue {
	switch ev.kind {
	case eventProgress:
		kv := []attribute.KeyValue{attribute.Float64("toolscope.progress.value", ev.progress)}
		if ev.relayed != nil {
			kv = append(kv, attribute.Bool("toolscope.progress.relayed", *ev.relayed))
		}
		if ev.total != nil {
			kv = append(kv, attribute.Float64("toolscope.progress.total", *ev.total))
		}
		if ev.message != "" {
			kv = append(kv, attribute.String("toolscope.progress.message", ev.message))
		}
		if ev.afterCancel {
			kv = append(kv, attribute.Bool("toolscope.progress.after_cancel", true))
		}
		return kv
	case eventWarning:
		return []attribute.KeyValue{
			attribute.String("toolscope.warning.code", ev.code),
			attribute.String("toolscope.warning.message", ev.message),
		}
	case eventRound:
		kv := []attribute.KeyValue{attribute.Int("toolscope.round.number", ev.round),
			attribute.String("toolscope.round.result_type", cmp.Or(ev.message, "complete"))}
		if ev.code != "" {
			kv = append(kv, attribute.String("toolscope.round.asked", ev.code))
		}
		return kv
	}
	return []attribute.KeyValue{attribute.String("toolscope.cancel.reason", ev.message)}
}
