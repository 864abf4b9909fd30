package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// TestGoSDKClient: the go-sdk client, at each protocol version the go-sdk
// speaks (2025-11-25 with a session, 2026-07-28 stateless), lists the
// tools and calls each against a tap that carried real calls.
func TestGoSDKClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.traffic()
			updated := make(chan string, 16)
			cs := f.goClient(version, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				updated <- r.Params.URI
			}}, nil)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			checkTools(t, cs)
			checkListCalls(t, cs)
			checkGetAndExplain(t, cs)
			checkWarningsAndSources(t, cs)
			checkResource(t, f, cs, updated)
		})
	}
}

func checkTools(t *testing.T, cs *mcp.ClientSession) {
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("%s: input schema %v, output schema %v, description %q", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil, tool.Description)
		}
		if tool.Name == "explain_call" { // findings are an array, [] when none: never null
			b, _ := json.Marshal(tool.OutputSchema)
			var schema struct {
				Properties map[string]struct {
					Type any `json:"type"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(b, &schema); err != nil || schema.Properties["findings"].Type != "array" {
				t.Errorf("explain_call's findings: type %v in %s", schema.Properties["findings"].Type, b)
			}
		}
	}
	slices.Sort(names)
	if want := []string{"explain_call", "get_call", "list_calls", "list_warnings", "sources"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func checkListCalls(t *testing.T, cs *mcp.ClientSession) {
	var out ListCallsOutput
	res := callTool(t, cs, "list_calls", nil, &out)
	if res.IsError || out.Held != 4 || len(out.Calls) != 4 || out.Calls[0].ID != "task-2/call_big" {
		t.Fatalf("list_calls: %s\n%s", text(res), dumpJSON(out))
	}
	rows := map[string]CallRow{}
	for _, r := range out.Calls {
		rows[r.ToolCallID] = r
	}
	// The server ran the tool on a token it had to refuse: the call ended
	// ok (no cause), its verdict says rejected, explain_call says the rest.
	if r := rows["call_aud"]; r.Verdict != model.VerdictRejected || r.Status != "ok" || r.Cause != "" ||
		r.Tool != "get_order" || r.Rounds != 1 || r.Attempts != 1 {
		t.Errorf("the rejected call: %+v", r)
	}
	if r := rows["call_fail"]; r.Status != "error" || r.Verdict != model.VerdictValid || !strings.Contains(r.Cause, "is locked") {
		t.Errorf("the isError call: %+v", r)
	}
	if r := rows["call_big"]; !slices.Contains(r.Flags, "offloaded") || !slices.Contains(r.Flags, "structured_dropped") {
		t.Errorf("the big call's flags: %+v", r)
	}
	if !strings.Contains(text(res), "4 of 4 calls match") {
		t.Errorf("text: %q", text(res))
	}

	res = callTool(t, cs, "list_calls", map[string]any{"filter": "status:error", "limit": 5}, &out)
	if res.IsError || out.Matched != 1 || out.Calls[0].ToolCallID != "call_fail" {
		t.Errorf("status:error: %s", dumpJSON(out))
	}
	res = callTool(t, cs, "list_calls", map[string]any{"filter": "flag:rejected"}, &out)
	if res.IsError || out.Matched != 1 || out.Calls[0].ToolCallID != "call_aud" {
		t.Errorf("flag:rejected: %s", dumpJSON(out))
	}
	res = callTool(t, cs, "list_calls", map[string]any{"limit": 1}, &out)
	if out.Matched != 4 || len(out.Calls) != 1 {
		t.Errorf("limit 1: %s", dumpJSON(out))
	}
	// A bad filter is a tool error that says what is valid.
	res = callTool(t, cs, "list_calls", map[string]any{"filter": "flag:whatever bogus:x"}, nil)
	if !res.IsError || !strings.Contains(text(res), "no flag whatever") || !strings.Contains(text(res), "attempt,replayed,valid,rejected") ||
		!strings.Contains(text(res), "no field bogus") {
		t.Errorf("a bad filter: isError %v, %q", res.IsError, text(res))
	}
	res = callTool(t, cs, "list_calls", map[string]any{"limit": -1}, nil)
	if !res.IsError || !strings.Contains(text(res), "1 to 500") {
		t.Errorf("limit -1: %q", text(res))
	}
}

func checkGetAndExplain(t *testing.T, cs *mcp.ClientSession) {
	var doc model.CallJSON
	res := callTool(t, cs, "get_call", map[string]any{"id": "task-1/call_aud"}, &doc)
	if res.IsError || doc.ID != "task-1/call_aud" || doc.Context == nil || doc.Context.Verdict != model.VerdictRejected ||
		len(doc.Context.Steps) == 0 || doc.Meta["agentarea/task_id"] != "task-1" || len(doc.Timeline) == 0 || len(doc.Attempts) != 1 {
		t.Fatalf("get_call: %s\n%s", text(res), dumpJSON(doc))
	}
	signed := false
	for _, r := range doc.MetaVsClaims {
		signed = signed || r.Key == "agentarea/task_id" && r.Verdict == model.MetaEqual && r.Signed == "task-1"
	}
	if !signed || doc.Rounds != 1 {
		t.Errorf("_meta against claims %+v, rounds %d", doc.MetaVsClaims, doc.Rounds)
	}
	// A tool_call_id finds the call too.
	if res := callTool(t, cs, "get_call", map[string]any{"id": "call_aud"}, &doc); res.IsError || doc.ID != "task-1/call_aud" {
		t.Errorf("by tool_call_id: %s", text(res))
	}
	res = callTool(t, cs, "get_call", map[string]any{"id": "task-9/nope"}, nil)
	if !res.IsError || !strings.Contains(text(res), "no call \"task-9/nope\" among the 4 calls") || !strings.Contains(text(res), "list_calls") {
		t.Errorf("an unknown id: isError %v, %q", res.IsError, text(res))
	}

	var x model.Explanation
	res = callTool(t, cs, "explain_call", map[string]any{"id": "task-1/call_aud"}, &x)
	if res.IsError || len(x.Findings) == 0 {
		t.Fatalf("explain_call: %s", text(res))
	}
	f := x.Findings[0]
	if f.HTTPStatus != 401 || f.RPCCode != -32001 || !strings.Contains(f.What, "aud") || !strings.Contains(f.Rule, "Verification a server performs") ||
		!strings.Contains(f.Must, "ran the tool on a token it had to refuse") {
		t.Errorf("the rejected call's finding: %+v", f)
	}
	if !strings.Contains(text(res), "must answer HTTP 401 · JSON-RPC -32001") {
		t.Errorf("explain text: %q", text(res))
	}
	var big model.Explanation
	callTool(t, cs, "explain_call", map[string]any{"id": "task-2/call_big"}, &big)
	all := dumpJSON(big)
	for _, want := range []string{"over 8000: offloaded", "over 16000: dropped by the platform", "\\\"Results\\\""} {
		if !strings.Contains(all, want) {
			t.Errorf("the big call's explanation lacks %q:\n%s", want, all)
		}
	}
	res = callTool(t, cs, "explain_call", map[string]any{"id": "nope"}, nil)
	if !res.IsError {
		t.Errorf("explain of an unknown id is no error: %q", text(res))
	}
}

func checkWarningsAndSources(t *testing.T, cs *mcp.ClientSession) {
	var w ListWarningsOutput
	res := callTool(t, cs, "list_warnings", nil, &w)
	if res.IsError || w.Matched == 0 || w.Total == 0 {
		t.Fatalf("list_warnings: %s", text(res))
	}
	for _, row := range w.Warnings {
		if row.Code == "" || row.Source == "" {
			t.Errorf("a warning row without code or source: %+v", row)
		}
	}
	code := w.Warnings[0].Code
	res = callTool(t, cs, "list_warnings", map[string]any{"code": code}, &w)
	for _, row := range w.Warnings {
		if row.Code != code {
			t.Errorf("code %s gave %+v", code, row)
		}
	}
	res = callTool(t, cs, "list_warnings", map[string]any{"code": "no_such_code"}, nil)
	if !res.IsError || !strings.Contains(text(res), "meta_claim_mismatch") {
		t.Errorf("an unknown code: %q", text(res))
	}

	var src SourcesOutput
	res = callTool(t, cs, "sources", nil, &src)
	if res.IsError || len(src.Sources) == 0 || src.Sources[0].Name != "orders" || src.Sources[0].Source != model.SourceTap || src.Calls != 4 {
		t.Errorf("sources: %s\n%s", text(res), dumpJSON(src))
	}
}

// checkResource reads a call as a resource (the same document as get_call)
// and, subscribed, is told when the call changes.
func checkResource(t *testing.T, f *fixture, cs *mcp.ClientSession, updated chan string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "toolscope://calls/{id}" {
		t.Fatalf("templates: %v %v", err, tmpl)
	}
	uri := CallURI("task-1/call_ok")
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %s: %v %v", uri, err, rr)
	}
	var doc model.CallJSON
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &doc); err != nil || doc.ID != "task-1/call_ok" || doc.Status != model.StatusOK {
		t.Fatalf("resource document: %v %s", err, rr.Contents[0].Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: CallURI("none/such")}); err == nil {
		t.Error("an unknown call's resource was read")
	}

	// A retry of the same call (same ids, next attempt) changes it.
	next := CallURI("task-3/call_retry")
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: next}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	f.call("task-3", "call_retry", "get_order", fixtureInstance, orderArgs{"A-20"})
	select {
	case got := <-updated:
		if got != next {
			t.Errorf("updated %s, want %s", got, next)
		}
	case <-ctx.Done():
		t.Fatalf("no resource-updated notification for %s", next)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: next}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
}
