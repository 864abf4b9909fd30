package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// Results are bounded: a list holds at most maxLimit rows (defaultLimit
// unless asked), and every text line is cut (bound.go cuts a call).
const (
	defaultLimit = 50
	maxLimit     = 500
	maxLineBytes = 300
	// maxExplainBytes bounds one line of explain_call's text: a finding
	// with its rule and what must be done is said whole.
	maxExplainBytes = 1500
)

// schemaTypes are the types whose inferred schema would be wrong: raw
// JSON is any JSON value (not an array of bytes), and an event is an object
// whose encoder adds fields of its kind (the JSON-lines interface). Each is
// an object, not the schema `true`, which the TypeScript SDK refuses.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value, as it was sent"},
	reflect.TypeFor[model.Event]():     {Type: "object"},
}

func schemaFor[T any]() (*jsonschema.Schema, error) {
	return jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
}

// addTool registers one tool with schemas inferred from its input and
// output types.
func addTool[In, Out any](s *mcp.Server, name, title, description string, h mcp.ToolHandlerFor[In, Out]) error {
	in, err := schemaFor[In]()
	if err != nil {
		return fmt.Errorf("%s input schema: %w", name, err)
	}
	out, err := schemaFor[Out]()
	if err != nil {
		return fmt.Errorf("%s output schema: %w", name, err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: name, Title: title, Description: description, InputSchema: in, OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}}, h)
	return nil
}

func (s *Server) addTools() error {
	for _, add := range []func() error{
		func() error {
			return addTool(s.mcp, "list_calls", "List tool calls",
				"The tool calls toolscope saw, newest first: id, tool, status, cause, token verdict, flags, duration, rounds. "+
					"filter uses the screen's syntax: terms separated by spaces, all must match, -term negates one; "+
					"tool:NAME, task:ID, status:ok,error,running,cancelled,late, source:tap|feed|NAME, "+
					"flag:"+strings.Join(model.FilterFlagNames, ",")+", or plain text (ids, names, arguments, result and error text).",
				s.listCalls)
		},
		func() error {
			return addTool(s.mcp, "get_call", "Get one call",
				"Everything seen of one call (an id from list_calls, or a tool_call_id): timeline, token header, claims and "+
					"verification steps, _meta, SOAT context, headers (credentials redacted), arguments, progress, attempts and "+
					"their results, warnings. The same document as the resource toolscope://calls/{id}. Long values are cut, said in cut.",
				s.getCall)
		},
		func() error {
			return addTool(s.mcp, "explain_call", "Explain one call",
				"Why a call ended as it did, in plain words: each finding with the contract rule it touches and what the server "+
					"or the platform must do (the HTTP status and JSON-RPC code a server must answer, the 0.5 s relay rule, the "+
					"platform's size limits and timeout).",
				s.explainCall)
		},
		func() error {
			return addTool(s.mcp, "list_warnings", "List warnings",
				"Contract and toolscope warnings, newest first, each with its code, message, the call it belongs to (if any), "+
					"what the code means and the rule it enforces. code filters by one warning code.",
				s.listWarnings)
		},
		func() error {
			return addTool(s.mcp, "sources", "List sources",
				"Every source toolscope watches (taps, feeds, a replay, the demo) with its state, detail, and counts.",
				s.sources)
		},
	} {
		if err := add(); err != nil {
			return err
		}
	}
	return nil
}

// limit is the rows asked for, within the bound.
func limit(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("limit %d: give 1 to %d (default %d)", n, maxLimit, defaultLimit)
	case n == 0:
		return defaultLimit, nil
	}
	return min(n, maxLimit), nil
}

// textResult is the short text beside the structured content, each line
// made terminal safe and cut to maxLineBytes.
func textResult(lines []string) *mcp.CallToolResult { return textResultOf(lines, maxLineBytes) }

func textResultOf(lines []string, width int) *mcp.CallToolResult {
	for i, l := range lines {
		lines[i] = model.Truncate(model.Sanitize(l), width)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}
}

// lookupCall is the one lookup of a call by the id a client gives (a
// tool's argument, a resource URI): the store's call id (list_calls' id),
// else a tool_call_id; nil when none.
func lookupCall(snap *model.Snapshot, id string) *model.Call {
	return snap.FindCall(strings.TrimSpace(id))
}

// findCall is lookupCall, or an error saying what ids are valid.
func findCall(snap *model.Snapshot, id string) (*model.Call, error) {
	if c := lookupCall(snap, id); c != nil {
		return c, nil
	}
	msg := fmt.Sprintf("no call %q among the %d calls toolscope holds: give an id from list_calls (or a tool_call_id)", id, len(snap.Calls))
	if n := len(snap.Calls); n > 0 {
		msg += fmt.Sprintf(", e.g. %q", snap.Calls[n-1].ID)
	}
	if snap.Evicted > 0 {
		msg += fmt.Sprintf("; %d finished calls were evicted to bound memory (--max-calls)", snap.Evicted)
	}
	return nil, fmt.Errorf("%s", msg)
}

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
	Status     string     `json:"status" jsonschema:"running, ok, error, cancelled or late"`
	Cause      string     `json:"cause,omitempty" jsonschema:"why it ended as it did, most specific first"`
	Verdict    string     `json:"verdict,omitempty" jsonschema:"the context token's verdict: valid, rejected, unverified or absent"`
	Flags      []string   `json:"flags"`
	Started    *time.Time `json:"started,omitempty"`
	DurationMS int64      `json:"duration_ms" jsonschema:"elapsed so far, or in all once ended"`
	Rounds     int        `json:"rounds" jsonschema:"rounds of a multi-round call (input_required answered), 1 for most"`
	Attempts   int        `json:"attempts"`
	Sent       int        `json:"progress_sent"`
	Relayed    int        `json:"progress_relayed"`
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
		if !f.Match(c) {
			continue
		}
		out.Matched++
		if len(out.Calls) == n {
			continue
		}
		row := newCallRow(c, now)
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

func newCallRow(c *model.Call, now time.Time) CallRow {
	row := CallRow{ID: c.ID, TaskID: c.TaskID, ToolCallID: c.ToolCallID, Tool: c.Tool, Status: string(c.Status),
		Cause: c.Cause(now), Flags: c.FlagNames(), DurationMS: c.Elapsed(now).Milliseconds(), Rounds: c.Rounds(),
		Attempts: len(c.Attempts), Sent: c.SentCount(), Relayed: c.RelayedCount()}
	if row.Tool == "" {
		row.Tool = c.AgentName
	}
	if row.Flags == nil {
		row.Flags = []string{}
	}
	if c.Context != nil {
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
	c, err := findCall(s.snapshot(), in.ID)
	if err != nil {
		return nil, model.CallJSON{}, err
	}
	doc := boundedCall(c, s.cfg.Now())
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

// ListWarningsInput is list_warnings' arguments.
type ListWarningsInput struct {
	Code  string `json:"code,omitempty" jsonschema:"only warnings of this code, e.g. meta_claim_mismatch"`
	Limit int    `json:"limit,omitempty" jsonschema:"most warnings returned, newest first: 1 to 500, default 50"`
}

// WarningRow is one warning.
type WarningRow struct {
	Time       time.Time `json:"time"`
	Code       string    `json:"code"`
	Message    string    `json:"message"`
	Call       string    `json:"call,omitempty" jsonschema:"the id of the call it belongs to, for get_call"`
	Tool       string    `json:"tool,omitempty"`
	Source     string    `json:"source"`
	SourceName string    `json:"source_name"`
	Meaning    string    `json:"meaning,omitempty" jsonschema:"what the code means"`
	Rule       string    `json:"rule,omitempty" jsonschema:"the contract rule it enforces"`
}

// ListWarningsOutput is list_warnings' result.
type ListWarningsOutput struct {
	Warnings []WarningRow `json:"warnings"`
	Matched  int          `json:"matched"`
	Total    int64        `json:"total" jsonschema:"warnings seen in all, including those no longer held"`
}

func (s *Server) listWarnings(_ context.Context, _ *mcp.CallToolRequest, in ListWarningsInput) (*mcp.CallToolResult, ListWarningsOutput, error) {
	n, err := limit(in.Limit)
	if err != nil {
		return nil, ListWarningsOutput{}, err
	}
	code := strings.TrimSpace(in.Code)
	if _, ok := model.WarningInfoOf(code); code != "" && !ok {
		codes := make([]string, len(model.WarningCodes))
		for i, w := range model.WarningCodes {
			codes[i] = string(w.Code)
		}
		return nil, ListWarningsOutput{}, fmt.Errorf("no warning code %q; the codes are: %s", code, strings.Join(codes, ", "))
	}
	snap := s.snapshot()
	var all []WarningRow
	add := func(e *model.Event, c *model.Call) {
		if e.Kind != model.KindWarning || code != "" && e.Code != code {
			return
		}
		row := WarningRow{Time: e.Time.UTC(), Code: e.Code, Message: model.Truncate(e.Message, maxLineBytes*2), Source: e.Source,
			SourceName: e.SourceName, Tool: e.Tool}
		if c != nil {
			row.Call, row.Tool = c.ID, c.Tool
		}
		if info, ok := model.WarningInfoOf(e.Code); ok {
			row.Meaning, row.Rule = strings.ReplaceAll(info.Meaning, "`", ""), strings.ReplaceAll(info.Rule, "`", "")
		}
		all = append(all, row)
	}
	for _, c := range snap.Calls {
		for i := range c.Warnings {
			add(&c.Warnings[i], c)
		}
	}
	for i := range snap.Other {
		add(&snap.Other[i], nil)
	}
	// Newest first; equal times keep the order they were held in.
	sortNewestFirst(all)
	out := ListWarningsOutput{Matched: len(all), Total: snap.Warnings, Warnings: all[:min(n, len(all))]}
	lines := []string{fmt.Sprintf("%d warnings held match (of %d seen)", out.Matched, out.Total)}
	for _, w := range out.Warnings {
		line := w.Time.Format("15:04:05.000") + "  " + w.Code + "  " + w.Message
		if w.Call != "" {
			line += "  (call " + w.Call + ")"
		}
		lines = append(lines, line)
	}
	return textResult(lines), out, nil
}

// SourceRow is one source and its state.
type SourceRow struct {
	Source     string     `json:"source" jsonschema:"tap, feed, replay or demo"`
	Name       string     `json:"name"`
	State      string     `json:"state,omitempty" jsonschema:"connecting, connected, reconnecting, ended or failed"`
	Detail     string     `json:"detail,omitempty"`
	Events     int64      `json:"events"`
	Calls      int        `json:"calls"`
	Reconnects int        `json:"reconnects,omitempty"`
	Changed    *time.Time `json:"changed,omitempty"`
}

// SourcesOutput is sources' result.
type SourcesOutput struct {
	Sources    []SourceRow `json:"sources"`
	Events     int64       `json:"events"`
	Calls      int         `json:"calls"`
	Warnings   int64       `json:"warnings"`
	Duplicates int64       `json:"duplicates" jsonschema:"feed events ignored as already seen"`
	Evicted    int64       `json:"evicted"`
}

func (s *Server) sources(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, SourcesOutput, error) {
	snap := s.snapshot()
	out := SourcesOutput{Sources: []SourceRow{}, Events: snap.Events, Calls: len(snap.Calls), Warnings: snap.Warnings,
		Duplicates: snap.Duplicates, Evicted: snap.Evicted}
	lines := []string{fmt.Sprintf("%d sources, %d events, %d calls, %d warnings", len(snap.Sources), snap.Events, len(snap.Calls), snap.Warnings)}
	for _, src := range snap.Sources {
		row := SourceRow{Source: src.Source, Name: src.Name, State: src.State, Detail: model.Truncate(src.Detail, maxLineBytes),
			Events: src.Events, Calls: src.Calls, Reconnects: src.Attempts}
		if !src.Changed.IsZero() {
			t := src.Changed.UTC()
			row.Changed = &t
		}
		out.Sources = append(out.Sources, row)
		line := src.Source + " " + src.Name + ": " + orDash(src.State)
		if src.Detail != "" {
			line += " (" + src.Detail + ")"
		}
		lines = append(lines, line+fmt.Sprintf(", %d calls", src.Calls))
	}
	return textResult(lines), out, nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
