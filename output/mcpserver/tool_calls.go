package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// list_calls, get_call and explain_call: the calls, one call, and why it
// ended as it did.

// ListCallsInput is list_calls' arguments.
type ListCallsInput struct {
	Filter string `json:"filter,omitempty" jsonschema:"the screen's filter, e.g. status:error,late -flag:valid tool:get_order; empty: every call"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most calls returned, newest first: 1 to 500, default 50"`
}

// CallRow is one call in list_calls.
type CallRow struct {
	ID         string     `json:"id" jsonschema:"the call's id, for get_call and explain_call"`
	TaskID     string     `json:"task_id,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Tool       string     `json:"tool"`
	Status     string     `json:"status" jsonschema:"running, needs input (waiting for the client's answers to a multi-round call), ok, error, cancelled or late"`
	Cause      string     `json:"cause,omitempty" jsonschema:"why it ended as it did, most specific first"`
	Verdict    string     `json:"verdict,omitempty" jsonschema:"the context token's verdict: valid, rejected, unverified or absent; not given on plain MCP"`
	Flags      []string   `json:"flags"`
	Started    *time.Time `json:"started,omitempty"`
	DurationMS int64      `json:"duration_ms" jsonschema:"elapsed so far, or in all once ended"`
	Rounds     int        `json:"rounds" jsonschema:"rounds of a multi-round call (input_required answered), 1 for most"`
	Attempts   int        `json:"attempts"`
	Sent       int        `json:"progress_sent"`
	Relayed    *int       `json:"progress_relayed,omitempty" jsonschema:"what the platform relays; absent on plain MCP, where nothing relays"`
}

// ListCallsOutput is list_calls' result.
type ListCallsOutput struct {
	Calls   []CallRow `json:"calls"`
	Matched int       `json:"matched" jsonschema:"calls that match the filter (more than calls when limited)"`
	Held    int       `json:"held" jsonschema:"calls toolscope holds"`
	Evicted int64     `json:"evicted" jsonschema:"finished calls evicted so far to bound memory"`
}

func (s *Server) listCalls(_ context.Context, _ *mcp.CallToolRequest, in ListCallsInput) (*mcp.CallToolResult, ListCallsOutput, error) {
	n, err := limit(in.Limit)
	if err != nil {
		return nil, ListCallsOutput{}, err
	}
	f := model.ParseFilter(in.Filter)
	if len(f.Problems) > 0 {
		var probs []string
		for _, p := range f.Problems {
			probs = append(probs, p.Error())
		}
		return nil, ListCallsOutput{}, fmt.Errorf("filter %q never matches: %s. Terms are tool:NAME, task:ID, status:%s, source:tap|feed|NAME, flag:%s or plain text; -term negates",
			in.Filter, strings.Join(probs, "; "), strings.Join(model.FilterStatuses, ","), strings.Join(model.FilterFlagNames, ","))
	}
	snap := s.snapshot()
	now := s.cfg.Now()
	out := ListCallsOutput{Calls: []CallRow{}, Held: len(snap.Calls), Evicted: snap.Evicted}
	lines := []string{""}
	for i := len(snap.Calls) - 1; i >= 0; i-- {
		c := snap.Calls[i]
		if !f.Match(snap, c) {
			continue
		}
		out.Matched++
		if len(out.Calls) == n {
			continue
		}
		row := newCallRow(snap, c, now)
		out.Calls = append(out.Calls, row)
		line := row.ID + "  " + row.Tool + "  " + row.Status
		if row.Cause != "" {
			line += "  " + row.Cause
		}
		lines = append(lines, line)
	}
	lines[0] = fmt.Sprintf("%d of %d calls match", out.Matched, out.Held)
	if f.Text != "" {
		lines[0] += " " + strconv.Quote(f.Text)
	}
	if out.Matched > len(out.Calls) {
		lines[0] += fmt.Sprintf("; the newest %d:", len(out.Calls))
	} else if len(out.Calls) > 0 {
		lines[0] += ", newest first:"
	}
	return textResult(lines), out, nil
}

func newCallRow(snap *model.Snapshot, c *model.Call, now time.Time) CallRow {
	row := CallRow{ID: c.ID, TaskID: c.TaskID, ToolCallID: c.ToolCallID, Tool: c.Tool, Status: string(c.Status),
		Cause: c.Cause(now), Flags: c.FlagNames(), DurationMS: c.Elapsed(now).Milliseconds(), Rounds: c.Rounds(),
		Attempts: len(c.Attempts), Sent: c.SentCount()}
	if c.Relays {
		n := c.RelayedCount()
		row.Relayed = &n
	}
	if row.Tool == "" {
		row.Tool = c.AgentName
	}
	if row.Flags == nil {
		row.Flags = []string{}
	}
	if c.Context != nil && snap.SpeaksAgentArea(c) { // plain MCP has no token to judge
		row.Verdict = c.Context.Verdict
	} else if c.Flags&model.FlagRejected != 0 {
		row.Verdict = model.VerdictRejected
	}
	start := c.Started
	if start.IsZero() {
		start = c.FirstSeen
	}
	if !start.IsZero() {
		t := start.UTC()
		row.Started = &t
	}
	return row
}

// CallInput names one call.
type CallInput struct {
	ID string `json:"id" jsonschema:"the call's id from list_calls (or its tool_call_id)"`
}

func (s *Server) getCall(_ context.Context, _ *mcp.CallToolRequest, in CallInput) (*mcp.CallToolResult, model.CallJSON, error) {
	snap := s.snapshot()
	c, err := findCall(snap, in.ID)
	if err != nil {
		return nil, model.CallJSON{}, err
	}
	doc := boundedCall(snap, c, s.cfg.Now())
	line := fmt.Sprintf("call %s: %s, %s after %s", doc.ID, c.Tool, doc.Status, time.Duration(doc.ElapsedMS)*time.Millisecond)
	if cause := c.Cause(s.cfg.Now()); cause != "" {
		line += "; " + cause
	}
	lines := []string{line, "The structured content holds the whole call (also at toolscope://calls/" + doc.ID + "); explain_call says why it ended so."}
	if len(doc.Cut) > 0 {
		lines = append(lines, "Cut to stay bounded: "+strings.Join(doc.Cut, "; "))
	}
	return textResult(lines), doc, nil
}

func (s *Server) explainCall(_ context.Context, _ *mcp.CallToolRequest, in CallInput) (*mcp.CallToolResult, model.Explanation, error) {
	c, err := findCall(s.snapshot(), in.ID)
	if err != nil {
		return nil, model.Explanation{}, err
	}
	x := model.Explain(c, s.cfg.Now())
	lines := []string{x.Summary}
	for _, f := range x.Findings {
		line := "- " + f.Level + ": " + f.What
		if f.Must != "" {
			line += " Must: " + f.Must + "."
		}
		lines = append(lines, line)
	}
	return textResultOf(lines, maxExplainBytes), x, nil
}
