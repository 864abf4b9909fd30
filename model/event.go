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
// omitted on the wire. Progress events always carry progress and total (null
// when unknown), and relayed where a platform relays.
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
	// Call is the call's id as the screen shows it (the store fills it in
	// as it applies a tool event), the same for every round of a
	// multi-round call (see Round).
	Call string `json:"call,omitempty"`

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
	// InputResponses are a later round's answers to what the server asked,
	// as sent; redacted as arguments are.
	InputResponses json.RawMessage `json:"input_responses,omitempty"`

	// tool.progress: the JSON lines always write progress and total for
	// that kind (total null when unknown).
	Progress float64  `json:"progress,omitempty"`
	Total    *float64 `json:"total,omitempty"`
	// Relayed is whether the platform relays the notification: always on a
	// feed; on a tap call with AgentArea context, the 0.5 s rule's answer.
	// Nil where nothing relays (plain MCP, the stdio tap). Set it with
	// BoolRef; never write through it.
	Relayed *bool `json:"relayed,omitempty"`
	// AfterCancel marks progress the server sent after the call was
	// cancelled (a tap's view): nobody relays it.
	AfterCancel bool `json:"after_cancel,omitempty"`

	// tool.result
	IsError  bool `json:"is_error,omitempty"`
	Replayed bool `json:"replayed,omitempty"`
	// Round numbers a call's rounds (from 1) once it is known to have more
	// than one (MCP 2026-07-28 input_required); any kind of call event.
	// Beside the flags, an int32 fills their word: an Event stays in the
	// 704-byte size class.
	Round                    int32           `json:"round,omitempty"`
	Error                    string          `json:"error,omitempty"`
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
	// InputRequests are what an input_required answer asks of the client.
	InputRequests []InputRequest `json:"input_requests,omitempty"`
	Denied        string         `json:"denied,omitempty"`
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

var boolRefs = [2]bool{false, true}

// BoolRef is a shared pointer to b, for optional flags set per event without
// an allocation: read only.
func BoolRef(b bool) *bool {
	if b {
		return &boolRefs[1]
	}
	return &boolRefs[0]
}

// IsRelayed says whether a progress event was (or would be) relayed: false
// also where nothing relays.
func (e *Event) IsRelayed() bool { return e.Relayed != nil && *e.Relayed }

// Image summarises one image a result carries (never the bytes).
type Image struct {
	ID       string `json:"id,omitempty"`
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
	// Problem is set when the platform would refuse the image (type or size).
	Problem string `json:"problem,omitempty"`
}

// InputRequest is one thing an input_required answer asks of the client:
// an elicitation (its message and requested schema, or a URL to open), a
// sampling request (its summary) or the client's roots.
type InputRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	// Message is an elicitation's message, or a sampling request's summary.
	Message         string          `json:"message,omitempty"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	URL             string          `json:"url,omitempty"`
}

// The methods of input requests (MCP 2026-07-28).
const (
	InputElicit = "elicitation/create"
	InputSample = "sampling/createMessage"
	InputRoots  = "roots/list"
)

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

// HasAgentAreaContext says whether a tool.call came with AgentArea context:
// a context token or agentarea/* _meta keys. A call without it is plain MCP.
func (e *Event) HasAgentAreaContext() bool {
	return e.Kind == KindToolCall && (e.Context != nil && e.Context.Present || len(e.Meta) > 0)
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
