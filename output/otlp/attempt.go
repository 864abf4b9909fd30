package otlp

import (
	"encoding/json"
	"strings"
	"time"

	"toolscope/model"
)

// attemptState is one attempt of a call, merged from every source that saw
// it, until its span is made. Strings from the wire are cut and sanitised
// as they arrive, so its size is bounded.
type attemptState struct {
	n    int
	call *callState

	exchange, sourceName string // the tap exchange that carried it
	feedCall             bool   // a feed's tool.call was seen for it
	sources              []string

	taskID, toolCallID, idemKey string
	tool, agentName             string
	requestID                   string
	traceParent, traceState     string
	sessionID, protocolVersion  string
	context                     *model.Context
	arguments                   json.RawMessage
	argumentBytes               int

	firstEvent, lastEvent time.Time
	called                time.Time // earliest tool.call
	ended                 time.Time // earliest result or cancellation
	hasResult             bool
	result                model.Result
	cancelled             string
	timedOut              bool
	unfinished            bool // let go of, or closed, without a result

	relays                                 bool // a platform relays its progress (not plain MCP)
	sent, wouldRelay, relayed, afterCancel int
	warnings                               int
	rounds                                 int // of a multi-round call (0: one round)
	events                                 eventLog

	queued   bool      // scheduled for export
	exportAt time.Time // when its linger ends
	sealed   bool      // its span is being made: no more changes
}

// Bounds of what an attempt keeps from the wire.
const (
	maxSources      = 4
	maxIDBytes      = 256
	maxMessageBytes = 200
	maxTraceBytes   = 512
	// maxArgumentsKept: arguments up to this size are held for their
	// preview (the store holds them anyway); bigger ones only as a size.
	maxArgumentsKept = 16 << 10
)

func (a *attemptState) apply(ev *model.Event) {
	if a.firstEvent.IsZero() || ev.Time.Before(a.firstEvent) {
		a.firstEvent = ev.Time
	}
	if ev.Time.After(a.lastEvent) {
		a.lastEvent = ev.Time
	}
	a.fillIdentity(ev)
	switch ev.Kind {
	case model.KindToolCall:
		a.applyCall(ev)
	case model.KindToolProgress:
		a.applyProgress(ev)
	case model.KindToolResult:
		a.applyResult(ev)
	case model.KindToolCancelled:
		reason := ev.Reason
		if reason == "" {
			reason = "cancelled"
		}
		if a.cancelled == "" {
			a.cancelled = model.Clip(reason, maxMessageBytes)
		}
		a.end(ev.Time)
		a.events.add(spanEvent{kind: eventCancelled, at: ev.Time, message: a.cancelled})
	case model.KindWarning:
		a.warnings++
		a.events.add(spanEvent{kind: eventWarning, at: ev.Time, code: model.Clip(ev.Code, maxIDBytes),
			message: model.Clip(ev.Message, maxMessageBytes)})
	}
}

func (a *attemptState) fillIdentity(ev *model.Event) {
	setOnce(&a.taskID, ev.TaskID)
	setOnce(&a.toolCallID, ev.ToolCallID)
	setOnce(&a.idemKey, ev.IdempotencyKey)
	if ev.Tool != "" {
		// A tap sees the server's name, a feed the agent-facing one
		// (mcp__server__tool): the span is named after the server's.
		if model.HasAgentPrefix(ev.Tool) && ev.Source != model.SourceTap {
			setOnce(&a.agentName, ev.Tool)
			setOnce(&a.tool, ev.Tool)
		} else if a.tool == "" || (ev.Source == model.SourceTap && a.tool == a.agentName) {
			a.tool = model.Clip(ev.Tool, maxIDBytes)
		}
	}
	setOnce(&a.agentName, ev.AgentName)
	if ev.SourceName != "" && len(a.sources) < maxSources {
		for _, s := range a.sources {
			if s == ev.SourceName {
				return
			}
		}
		a.sources = append(a.sources, model.Clip(ev.SourceName, maxIDBytes))
	}
}

func (a *attemptState) applyCall(ev *model.Event) {
	if a.called.IsZero() || ev.Time.Before(a.called) {
		a.called = ev.Time
	}
	if ev.Source != model.SourceTap {
		a.feedCall = true
	}
	setOnce(&a.requestID, ev.RequestID)
	if len(ev.Arguments) > 0 {
		a.argumentBytes = len(ev.Arguments)
		a.arguments = nil
		if len(ev.Arguments) <= maxArgumentsKept { // for the preview; a bigger one is only a size
			a.arguments = ev.Arguments
		}
	}
	if ev.Context != nil {
		a.context = ev.Context
	}
	if ev.TraceParent != "" {
		a.traceParent, a.traceState = model.Clip(ev.TraceParent, maxTraceBytes), model.Clip(ev.TraceState, maxTraceBytes)
	}
	setOnce(&a.sessionID, ev.Headers["Mcp-Session-Id"])
	setOnce(&a.protocolVersion, ev.Headers["Mcp-Protocol-Version"])
}

func (a *attemptState) applyProgress(ev *model.Event) {
	fromTap := ev.Source == model.SourceTap
	relayed := ev.Relayed
	if fromTap {
		a.sent++
		if ev.IsRelayed() {
			a.wouldRelay++
		}
		if ev.AfterCancel {
			a.afterCancel++
		}
	} else {
		a.relayed++
		relayed = model.BoolRef(true)
	}
	a.relays = a.relays || relayed != nil
	a.events.add(spanEvent{kind: eventProgress, at: ev.Time, fromTap: fromTap, progress: ev.Progress,
		total: ev.Total, message: model.Clip(ev.Message, maxMessageBytes), relayed: relayed,
		afterCancel: ev.AfterCancel})
}

// applyResult merges a result as the store does: flags add up, the first
// non-empty value of a field stays. An answer that asks for input ends a
// round, not the attempt: an event of the span.
func (a *attemptState) applyResult(ev *model.Event) {
	if ev.Round > 0 {
		a.rounds = max(a.rounds, int(ev.Round))
		ended := spanEvent{kind: eventRound, at: ev.Time, round: int(ev.Round), message: model.Clip(ev.ResultType, maxIDBytes)}
		if ev.ResultType == model.ResultInputRequired && !ev.IsError {
			parts := make([]string, 0, len(ev.InputRequests))
			for _, ir := range ev.InputRequests {
				parts = append(parts, ir.Summary())
			}
			ended.code = model.Clip(strings.Join(parts, "; "), maxMessageBytes)
			a.events.add(ended)
			return
		}
		a.events.add(ended)
	}
	r := &a.result
	a.hasResult = true
	a.end(ev.Time)
	r.IsError = r.IsError || ev.IsError
	setOnce(&r.Error, ev.Error)
	r.Replayed = r.Replayed || ev.Replayed
	r.DurationMS = firstInt(r.DurationMS, ev.DurationMS)
	r.HTTPStatus = firstInt(r.HTTPStatus, ev.HTTPStatus)
	r.RPCCode = firstInt(r.RPCCode, ev.RPCCode)
	r.TextChars = firstInt(r.TextChars, ev.TextChars)
	setOnce(&r.TextPreview, ev.TextPreview)
	r.Offloaded = r.Offloaded || ev.Offloaded
	if len(ev.Images) > 0 && len(r.Images) == 0 {
		r.Images = ev.Images
	}
	if ev.StructuredContentBytes > 0 {
		r.StructuredContentBytes = firstInt(r.StructuredContentBytes, ev.StructuredContentBytes)
	} else if len(ev.StructuredContent) > 0 && r.StructuredContentBytes == 0 {
		r.StructuredContentBytes = len(ev.StructuredContent)
	}
	r.StructuredContentDropped = r.StructuredContentDropped || ev.StructuredContentDropped
	r.Late = r.Late || ev.Late
	setOnce(&r.Denied, ev.Denied)
	if ev.TimedOut {
		a.timedOut = true
		if a.cancelled == "" {
			a.cancelled = model.Clip(ev.Error, maxMessageBytes) // the platform gave up
		}
	}
}

// end keeps the earliest end: the wire's, when a feed reports it later.
func (a *attemptState) end(at time.Time) {
	if a.ended.IsZero() || at.Before(a.ended) {
		a.ended = at
	}
}

// markUnfinished ends an attempt no result came for at its last event.
func (a *attemptState) markUnfinished() {
	if a.ended.IsZero() {
		a.unfinished = true
		a.ended = a.lastEvent
	}
}

// startTime is the call's time on the wire: its earliest tool.call.
func (a *attemptState) startTime() time.Time {
	if !a.called.IsZero() {
		return a.called
	}
	return a.firstEvent
}

func (a *attemptState) endTime() time.Time {
	if a.ended.Before(a.startTime()) {
		return a.startTime() // another source's clock ran behind
	}
	return a.ended
}

func setOnce(dst *string, v string) {
	if *dst == "" && v != "" {
		*dst = model.Clip(v, maxIDBytes)
	}
}

func firstInt[T int | int64](have, v T) T {
	if have == 0 {
		return v
	}
	return have
}
