package model

import (
	"encoding/json"
	"time"
)

// CallJSON is one call as one redacted JSON document: what the screen's `y`
// copies, and what the MCP server's get_call and toolscope://calls/{id}
// return. Its field names are stable.
type CallJSON struct {
	ID             string     `json:"id"`
	TaskID         string     `json:"task_id,omitempty"`
	ToolCallID     string     `json:"tool_call_id,omitempty"`
	Tool           string     `json:"tool,omitempty"`
	AgentName      string     `json:"agent_name,omitempty"`
	IdempotencyKey string     `json:"idempotency_key,omitempty"`
	RequestID      string     `json:"request_id,omitempty"`
	Sources        []string   `json:"sources,omitempty"`
	Status         Status     `json:"status"`
	Started        *time.Time `json:"started,omitempty"`
	Ended          *time.Time `json:"ended,omitempty"`
	ElapsedMS      int64      `json:"elapsed_ms"`
	TimeoutMS      int64      `json:"timeout_ms,omitempty"`
	Flags          []string   `json:"flags,omitempty"`
	Rounds         int        `json:"rounds"`
	// ServerMS and WaitingMS split a multi-round call's time: the server's
	// rounds, and the waits for the client's input between them.
	ServerMS  int64           `json:"server_ms,omitempty"`
	WaitingMS int64           `json:"waiting_ms,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      map[string]any  `json:"meta,omitempty"`
	// MetaVsClaims is each _meta key against its claim (the detail's
	// "_META vs CLAIMS").
	MetaVsClaims []MetaClaim       `json:"meta_vs_claims,omitempty"`
	Context      *Context          `json:"context,omitempty"`
	SoatContext  map[string]string `json:"soat_context,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Progress     ProgressJSON      `json:"progress"`
	Attempts     []AttemptJSON     `json:"attempts,omitempty"`
	Warnings     []Event           `json:"warnings,omitempty"`
	Timeline     []Event           `json:"timeline,omitempty"`
	// Cut says which values a bounded reader (the MCP server) cut, and by
	// how much; `y` never cuts.
	Cut []string `json:"cut,omitempty"`
}

// ProgressJSON is a call's progress in CallJSON.
type ProgressJSON struct {
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total"`
	Message       string   `json:"message,omitempty"`
	Sent          int      `json:"sent"`
	Relayed       *int     `json:"relayed,omitempty"` // absent on plain MCP, where nothing relays
	WouldRelay    int      `json:"would_relay,omitempty"`
	NotIncreasing int      `json:"not_increasing,omitempty"`
}

// AttemptJSON is one attempt in CallJSON.
type AttemptJSON struct {
	N          int        `json:"n"`
	SourceName string     `json:"source_name,omitempty"`
	Exchange   string     `json:"exchange,omitempty"`
	RequestID  string     `json:"request_id,omitempty"`
	Started    *time.Time `json:"started,omitempty"`
	Ended      *time.Time `json:"ended,omitempty"`
	Context    *Context   `json:"context,omitempty"`
	Cancelled  string     `json:"cancelled,omitempty"`
	Result     *Result    `json:"result,omitempty"`
	// Rounds are a multi-round call's rounds (absent for a call of one).
	Rounds []RoundJSON `json:"rounds,omitempty"`
}

// RoundJSON is one round of a multi-round call in CallJSON: what the
// client answered with its request, what the server asked in its answer,
// and how long the server took.
type RoundJSON struct {
	N          int             `json:"n"`
	RequestID  string          `json:"request_id,omitempty"`
	Started    *time.Time      `json:"started,omitempty"`
	Ended      *time.Time      `json:"ended,omitempty"`
	ServerMS   int64           `json:"server_ms"`
	Answers    json.RawMessage `json:"input_responses,omitempty"`
	Asked      []InputRequest  `json:"input_requests,omitempty"`
	AskedInput bool            `json:"input_required,omitempty"`
}

// callFlagNames name a call's flag bits in CallJSON.
var callFlagNames = []struct {
	bit  CallFlag
	name string
}{
	{FlagRetried, "retried"}, {FlagReplayed, "replayed"}, {FlagImages, "images"},
	{FlagStructured, "structured"}, {FlagStructuredDropped, "structured_dropped"},
	{FlagOffloaded, "offloaded"}, {FlagLimit, "limit"}, {FlagRejected, "rejected"},
	{FlagLate, "late"}, {FlagPII, "pii"}, {FlagWarning, "warning"},
}

// FlagNames names the call's flags as CallJSON does.
func (c *Call) FlagNames() []string {
	var names []string
	for _, f := range callFlagNames {
		if c.Flags&f.bit != 0 {
			names = append(names, f.name)
		}
	}
	return names
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// CallJSON renders one of the snapshot's calls as the store holds it:
// redacted by the hub before it reached the store (the one Redactor). A
// raw value that is not JSON becomes a JSON string, so the document always
// marshals. A call AgentArea's contract does not apply to
// (SpeaksAgentArea) has no context: plain MCP has no token to miss, though
// a recording may say "absent" of it.
func (s *Snapshot) CallJSON(c *Call, now time.Time) CallJSON {
	out := CallJSON{
		ID: c.ID, TaskID: c.TaskID, ToolCallID: c.ToolCallID, Tool: c.Tool, AgentName: c.AgentName,
		IdempotencyKey: c.IdempotencyKey, RequestID: c.RequestID, Sources: c.Sources, Status: c.Status,
		Started: timePtr(c.Started), Ended: timePtr(c.Ended), ElapsedMS: c.Elapsed(now).Milliseconds(),
		TimeoutMS: c.TimeoutMS, Flags: c.FlagNames(), Arguments: validJSON(c.Arguments), Meta: c.Meta(),
		Context: c.Context.Expanded(), SoatContext: c.SoatContext, MetaVsClaims: c.MetaAgainstClaims(), Rounds: c.Rounds(),
	}
	out.Headers = c.Headers()
	if c.MultiRound() {
		server, waiting := c.RoundTimes(now)
		out.ServerMS, out.WaitingMS = server.Milliseconds(), waiting.Milliseconds()
	}
	p := &c.Progress
	out.Progress = ProgressJSON{Progress: p.Progress, Message: p.Message, Sent: c.SentCount(),
		WouldRelay: p.WouldRelay, NotIncreasing: p.NotIncreasing}
	if c.Relays {
		n := c.RelayedCount()
		out.Progress.Relayed = &n
	}
	if p.HasTotal {
		t := p.Total
		out.Progress.Total = &t
	}
	agentArea := s.SpeaksAgentArea(c)
	if !agentArea {
		out.Context = nil
	}
	for _, a := range c.Attempts {
		aj := AttemptJSON{N: a.N, SourceName: a.SourceName, Exchange: a.Exchange, RequestID: a.RequestID,
			Started: timePtr(a.Started), Ended: timePtr(a.Ended), Cancelled: a.Cancelled}
		if agentArea {
			aj.Context = a.Context.Expanded()
		}
		if a.HasResult {
			r := a.Result
			r.StructuredContent = validJSON(r.StructuredContent)
			aj.Result = &r
		}
		for _, r := range a.Rounds {
			end := r.Ended
			if end.IsZero() {
				end = now
			}
			aj.Rounds = append(aj.Rounds, RoundJSON{N: r.N, RequestID: r.RequestID, Started: timePtr(r.Started), Ended: timePtr(r.Ended),
				ServerMS: max(end.Sub(r.Started), 0).Milliseconds(), Answers: validJSON(r.Answers), Asked: r.Asked, AskedInput: r.AskedInput})
		}
		out.Attempts = append(out.Attempts, aj)
	}
	out.Warnings = c.Warnings
	for _, e := range c.Timeline() {
		if !agentArea {
			e.Context = nil
		}
		e.Arguments = validJSON(e.Arguments)
		e.InputResponses = validJSON(e.InputResponses)
		e.StructuredContent = validJSON(e.StructuredContent)
		e.Data = validJSON(e.Data)
		out.Timeline = append(out.Timeline, e)
	}
	return out
}

// MarshalCallJSON is CallJSON indented, with control characters escaped
// so the document is safe to show on a terminal.
func (s *Snapshot) MarshalCallJSON(c *Call, now time.Time) ([]byte, error) {
	b, err := json.MarshalIndent(s.CallJSON(c, now), "", "  ")
	if err != nil {
		return nil, err
	}
	return TerminalSafeJSON(b), nil
}

// validJSON makes a raw value that is not JSON a JSON string (it would
// fail the marshal).
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
