package jsonrpc

import (
	"fmt"
	"testing"
)

// A later round of a multi-round call (MCP 2026-07-28) sends back the
// state and the client's answers in the call's params, read in the same
// pass as its name and arguments.
func TestLaterRoundParams(t *testing.T) {
	m := readParams(t, "tools/call", `{"name":"deploy","arguments":{"env":"prod"},"requestState":"s-1",
		"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}}`)
	if m.Call.Name != "deploy" || m.Call.RequestState != "s-1" ||
		string(m.Call.InputResponses) != `{"confirm":{"action":"accept","content":{"ok":true}}}` {
		t.Fatalf("%+v", m.Call)
	}
	if m := readParams(t, "tools/call", `{"name":"deploy","inputResponses":null}`); m.Call.InputResponses != nil || m.Call.RequestState != "" {
		t.Fatalf("a first round: %+v", m.Call)
	}
	if fmt.Sprint(m.Call.InputResponseIDs) != "[confirm]" {
		t.Fatalf("answer keys %q", m.Call.InputResponseIDs)
	}
	if m := readParams(t, "tools/call", `{"name":"deploy","inputResponses":{"a\u0062":{},"c":null}}`); fmt.Sprint(m.Call.InputResponseIDs) != "[ab c]" {
		t.Fatalf("answer keys, unescaped: %q", m.Call.InputResponseIDs)
	}
	if m := readParams(t, "tools/call", `{"name":"deploy","inputResponses":[1]}`); m.Call.InputResponseIDs != nil || string(m.Call.InputResponses) != "[1]" {
		t.Fatalf("not an object: %+v", m.Call)
	}
}

// A request's _meta declares what the client can do for the server: a
// capability is declared by a member that is not null.
func TestClientCapabilities(t *testing.T) {
	for _, tc := range []struct{ meta, want string }{
		{`{}`, "<nil>"},
		{`{"io.modelcontextprotocol/clientCapabilities":{}}`, "&{false false false}"},
		{`{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"roots":{},"sampling":null}}`, "&{true false true}"},
		{`{"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"experimental":{"x":{}}}}`, "&{false true false}"},
		{`{"io.modelcontextprotocol/clientCapabilities":"all"}`, "<nil>"},
	} {
		m := readParams(t, "tools/call", `{"name":"deploy","_meta":`+tc.meta+`}`)
		if got := fmt.Sprint(m.Meta.ClientCapabilities); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.meta, got, tc.want)
		}
	}
	// 2025-11-25 declares them once, in initialize's params.
	m := readParams(t, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"c"}}`)
	if got := fmt.Sprint(m.Capabilities); got != "&{false true true}" || m.Plain["clientInfo"] == nil {
		t.Errorf("initialize: %s, %v", got, m.Plain)
	}
	if m := readParams(t, "tools/call", `{"name":"deploy","capabilities":{"sampling":{}}}`); m.Capabilities != nil {
		t.Errorf("capabilities on another method: %+v", m.Capabilities)
	}
}

func readResult(t *testing.T, result string) *Result {
	t.Helper()
	b := Read([]byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`))
	if b.Err != nil || b.Messages[0].Summary == nil {
		t.Fatalf("%s: %+v", result, b)
	}
	return b.Messages[0].Summary
}

func TestInputRequiredResult(t *testing.T) {
	r := readResult(t, `{"content":null,"resultType":"input_required","requestState":"s-1","inputRequests":{
		"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object"}}},
		"roots":{"method":"roots/list"}}}`)
	if len(r.Problems) != 0 {
		t.Fatalf("an answer asking for input has no content of its own: %v", r.Problems)
	}
	if r.ResultType != "input_required" || r.RequestState != "s-1" || len(r.InputRequests) != 2 {
		t.Fatalf("%+v", r)
	}
	if ir := r.InputRequests[0]; ir.ID != "confirm" || ir.Method != "elicitation/create" || ir.Message != "Deploy?" || string(ir.RequestedSchema) != `{"type":"object"}` {
		t.Fatalf("%+v", ir)
	}
	if ir := r.InputRequests[1]; ir.ID != "roots" || ir.Method != "roots/list" || ir.Message != "" {
		t.Fatalf("%+v", ir)
	}
	r = readResult(t, `{"resultType":"input_required","inputRequests":{"draft":{"method":"sampling/createMessage","params":{
		"maxTokens":100,"systemPrompt":"be brief","messages":[{"role":"user","content":{"type":"text","text":"hello"}},
		{"role":"user","content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"summarize"}]}]}}}}`)
	if ir := r.InputRequests[0]; ir.Messages != 2 || ir.LastText != "summarize" || ir.MaxTokens != 100 || ir.SystemPrompt != "be brief" {
		t.Fatalf("sampling: %+v", ir)
	}
	// Without content, a complete answer is still malformed.
	if r := readResult(t, `{"resultType":"complete"}`); len(r.Problems) != 1 || r.Problems[0] != "result has no content array" {
		t.Fatalf("%v", r.Problems)
	}
	if r := readResult(t, `{"content":[],"resultType":"input_required","inputRequests":[1],"requestState":2}`); len(r.Problems) != 2 {
		t.Fatalf("inputRequests not an object, requestState not a string: %v", r.Problems)
	}
}
