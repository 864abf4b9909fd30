// Package model is toolscope's domain: the normalized Event every source
// produces, the Call record events are joined into, and the Store that holds
// them. Store.Apply is the only mutation; readers get immutable snapshots.
package model

import (
	"encoding/json"
	"time"
)

// Kind names what an event is. The values are the `kind` field of the
// JSON-lines interface and are stable.
type Kind string

const (
	KindToolCall      Kind = "tool.call"
	KindToolProgress  Kind = "tool.progress"
	KindToolResult    Kind = "tool.result"
	KindToolCancelled Kind = "tool.cancelled"
	KindTaskStatus    Kind = "task.status"
	KindSourceStatus  Kind = "source.status"
	KindWarning       Kind = "warning"
	KindEvent         Kind = "event"
)

// Kinds lists every kind, in the order docs/json-lines.md gives them.
var Kinds = []Kind{KindToolCall, KindToolProgress, KindToolResult, KindToolCancelled,
	KindTaskStatus, KindSourceStatus, KindWarning, KindEvent, KindWire}

// Source values: where an event was seen.
const (
	SourceFeed   = "feed"
	SourceTap    = "tap"
	SourceReplay = "replay"
	SourceDemo   = "demo"
)

// Source states carried by source.status events.
const (
	StateConnecting   = "connecting"
	StateConnected    = "connected"
	StateReconnecting = "reconnecting"
	StateEnded        = "ended"
	StateFailed       = "failed"
	// StateFailing: up, but what it talks to does not answer (a tap's
	// upstream, the OpenTelemetry collector); it keeps trying, and says
	// connected again once it does.
	StateFailing = "failing"
)

// Context verdicts.
const (
	VerdictValid      = "valid"
	VerdictRejected   = "rejected"
	VerdictUnverified = "unverified"
	VerdictAbsent     = "absent"
)

// Event is one normalized observation from any source. Field names follow the
// JSON-lines interface (docs/json-lines.md); fields that do not apply to a kind stay zero and are
// omitted on the wire. Progress events always carry progress, total (null when
// unknown) and relayed.
type Event struct {
	Time       time.Time `json:"time"`
	Source     string    `json:"source"`
	SourceName string    `json:"source_name"`
	Kind       Kind      `json:"kind"`

	// Identity of the call the event belongs to.
	TaskID     string `json:"task_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	EventID    string `json:"event_id,omitempty"`
	// Exchange is a tap's own id for one HTTP request (unique per tap), so
	// calls without AgentArea ids are still told apart when JSON-RPC ids
	// repeat across connections.
	Exchange string `json:"exchange,omitempty"`
	// RequestID is the JSON-RPC id as it appeared on the wire (raw JSON text).
	RequestID      string `json:"request_id,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`

	// tool.call
	Arguments   json.RawMessage   `json:"arguments,omitempty"`
	Attempt     int               `json:"attempt,omitempty"`
	Meta        map[string]any    `json:"meta,omitempty"`
	Context     *Context          `json:"context,omitempty"`
	SoatContext map[string]string `json:"soat_context,omitempty"`
	AgentName   string            `json:"agent_name,omitempty"`
	TimeoutMS   int64             `json:"timeout_ms,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	// TraceParent and TraceState are the W3C trace context of _meta
	// (traceparent, tracestate): OpenTelemetry export makes the call's span
	// a child of that span.
	TraceParent string `json:"traceparent,omitempty"`
	TraceState  string `json:"tracestate,omitempty"`

	// tool.progress: the JSON lines always write these three for that kind
	// (total null when unknown).
	Progress float64  `json:"progress,omitempty"`
	Total    *float64 `json:"total,omitempty"`
	Relayed  bool     `json:"relayed,omitempty"`
	// AfterCancel marks progress the server sent after the call was
	// cancelled (a tap's view): nobody relays it.
	AfterCancel bool `json:"after_cancel,omitempty"`

	// tool.result
	IsError                  bool            `json:"is_error,omitempty"`
	Error                    string          `json:"error,omitempty"`
	Replayed                 bool            `json:"replayed,omitempty"`
	DurationMS               int64           `json:"duration_ms,omitempty"`
	HTTPStatus               int             `json:"http_status,omitempty"`
	RPCCode                  int             `json:"rpc_code,omitempty"`
	TextChars                int             `json:"text_chars,omitempty"`
	TextPreview              string          `json:"text_preview,omitempty"`
	Offloaded                bool            `json:"offloaded,omitempty"`
	Images                   []Image         `json:"images,omitempty"`
	StructuredContent        json.RawMessage `json:"structured_content,omitempty"`
	StructuredContentBytes   int             `json:"structured_content_bytes,omitempty"`
	StructuredContentDropped bool            `json:"structured_content_dropped,omitempty"`
	Late                     bool            `json:"late,omitempty"`
	ResultType               string          `json:"result_type,omitempty"`
	Denied                   string          `json:"denied,omitempty"`
	// TimedOut: the platform ended the call at its timeout (a feed's
	// "MCP tool call timed out" result): the call was cancelled.
	TimedOut bool `json:"timed_out,omitempty"`

	// tool.cancelled, task.status
	Reason string `json:"reason,omitempty"`
	// task.status, event
	EventType string `json:"event_type,omitempty"`
	// progress, task.status, warning
	Message string `json:"message,omitempty"`

	// source.status
	State  string `json:"state,omitempty"`
	Detail string `json:"detail,omitempty"`

	// warning
	Code string `json:"code,omitempty"`

	// event: the data object of a passed-through feed event, or of plain MCP
	// traffic a tap saw (initialize, tools/list...).
	Data json.RawMessage `json:"data,omitempty"`

	// wire: what passed a tap as sent, redacted when written (wire.go).
	Wire *Wire `json:"wire,omitempty"`
}

// Image summarises one image a result carries (never the bytes).
type Image struct {
	ID       string `json:"id,omitempty"`
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
	// Problem is set when the platform would refuse the image (type or size).
	Problem string `json:"problem,omitempty"`
}

// Context is what toolscope knows of a call's X-AgentArea-Context token.
type Context struct {
	Present    bool   `json:"present"`
	Verdict    string `json:"verdict"`
	HTTPStatus int    `json:"http_status,omitempty"`
	RPCCode    int    `json:"rpc_code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Header is the token's decoded JOSE header. Read only: the contexts
	// stored calls keep share one map for the common HS256 header.
	Header map[string]any `json:"header,omitempty"`
	// Claims is nil in a context a call in the store keeps, which holds
	// them as text: read them with ClaimMap.
	Claims   map[string]any `json:"claims,omitempty"`
	Steps    []Step         `json:"steps,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	// CredentialPresent says whether the static credential header was sent
	// (its value is never recorded).
	CredentialPresent bool `json:"credential_present,omitempty"`

	claims objectText // Claims, in a context a stored call keeps (call_compact.go)
}

// Step is one verification step of the contract, passed or failed.
type Step struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// IsCallEvent says whether the event belongs to a tool call.
func (e *Event) IsCallEvent() bool {
	switch e.Kind {
	case KindToolCall, KindToolProgress, KindToolResult, KindToolCancelled:
		return true
	case KindWarning:
		return e.TaskID != "" || e.Exchange != "" || e.IdempotencyKey != ""
	}
	return false
}
