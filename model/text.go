package model

import (
	"fmt"
	"strconv"
	"strings"
)

// TextLine renders an event as one readable, sanitized line (no newline):
// the event log's line and --output text's. The event is shown as it is:
// events reach it redacted (the hub).
func TextLine(e Event) string {
	var b strings.Builder
	b.WriteString(e.Time.UTC().Format("15:04:05.000"))
	b.WriteByte(' ')
	fmt.Fprintf(&b, "%-6s %-20s ", e.Source, Sanitize(e.SourceName))
	b.WriteString(string(e.Kind))
	if id := callLabel(&e); id != "" {
		b.WriteString(" [" + Sanitize(id) + "]")
	}
	if e.Tool != "" {
		b.WriteString(" " + Sanitize(e.Tool))
	}
	if e.Round > 0 {
		b.WriteString(" round=" + strconv.Itoa(int(e.Round)))
	}
	add := func(k, v string) {
		if v != "" {
			b.WriteString(" " + k + "=" + Sanitize(v))
		}
	}
	switch e.Kind {
	case KindToolCall:
		if e.Attempt > 1 {
			add("attempt", strconv.Itoa(e.Attempt))
		}
		if e.Context != nil && (e.Context.Verdict != VerdictAbsent || e.HasAgentAreaContext()) { // plain MCP: no token to speak of
			v := e.Context.Verdict
			if e.Context.HTTPStatus != 0 {
				v += fmt.Sprintf("(%d/%d)", e.Context.HTTPStatus, e.Context.RPCCode)
			}
			add("context", v)
		}
		if len(e.SoatContext) > 0 {
			add("soat_keys", strconv.Itoa(len(e.SoatContext)))
		}
		add("args", Truncate(string(e.Arguments), 80))
		add("answers", Truncate(string(e.InputResponses), 80))
	case KindToolProgress:
		total := "?"
		if e.Total != nil {
			total = FormatNumber(*e.Total)
		}
		add("progress", FormatNumber(e.Progress)+"/"+total)
		if e.Relayed != nil {
			add("relayed", strconv.FormatBool(*e.Relayed))
		}
		if e.AfterCancel {
			add("after_cancel", "true")
		}
		add("msg", strconv.Quote(e.Message))
	case KindToolResult:
		addResultFields(add, &e)
	case KindToolCancelled:
		add("reason", e.Reason)
	case KindTaskStatus:
		add("event", e.EventType)
		add("msg", strconv.Quote(e.Message))
		add("reason", e.Reason)
	case KindSourceStatus:
		add("state", e.State)
		add("detail", e.Detail)
	case KindWarning:
		add("code", e.Code)
		add("msg", strconv.Quote(e.Message))
	case KindEvent:
		add("event", e.EventType)
		add("data", Truncate(string(e.Data), 100))
	}
	return b.String()
}

// addResultFields adds a tool.result's fields to its text line.
func addResultFields(add func(k, v string), e *Event) {
	status := "ok"
	switch {
	case e.IsError || e.Error != "":
		status = "error"
	case e.ResultType == ResultInputRequired:
		status = "input_required"
		for _, ir := range e.InputRequests {
			add("asks", strconv.Quote(Truncate(ir.Summary(), 80)))
		}
	}
	add("status", status)
	if e.Attempt > 1 {
		add("attempt", strconv.Itoa(e.Attempt))
	}
	if e.Replayed {
		add("replayed", "true")
	}
	if e.HTTPStatus != 0 {
		add("http", strconv.Itoa(e.HTTPStatus))
	}
	if e.RPCCode != 0 {
		add("rpc_code", strconv.Itoa(e.RPCCode))
	}
	if e.TextChars > 0 {
		add("text_chars", strconv.Itoa(e.TextChars))
	}
	if e.Offloaded {
		add("offloaded", "true")
	}
	if len(e.Images) > 0 {
		add("images", strconv.Itoa(len(e.Images)))
	}
	if e.StructuredContentBytes > 0 {
		add("structured_bytes", strconv.Itoa(e.StructuredContentBytes))
	}
	if e.StructuredContentDropped {
		add("structured_dropped", "true")
	}
	if e.Late {
		add("late", "true")
	}
	if e.TimedOut {
		add("timed_out", "true")
	}
	if e.DurationMS > 0 {
		add("duration_ms", strconv.FormatInt(e.DurationMS, 10))
	}
	add("error", Truncate(e.Error, 120))
}

// FormatNumber is a progress figure as the lines and the screen show it,
// without noise: 5, 2.5, 0.125.
func FormatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func callLabel(e *Event) string {
	switch {
	case e.ToolCallID != "":
		return ShortID(e.TaskID) + "/" + e.ToolCallID
	case e.Exchange != "":
		return "#" + e.Exchange
	}
	return ""
}
