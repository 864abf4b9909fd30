package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// list_warnings and sources: what toolscope noticed, and what it watches.

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
