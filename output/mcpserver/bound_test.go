package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResultsBounded: a call whose arguments are far over the bound comes
// back cut, the cut said in the document and the text; a limit over the
// bound is held to it.
func TestResultsBounded(t *testing.T) {
	f := newFixture(t, Config{})
	huge := strings.Repeat("x", 200<<10)
	f.call("task-b", "call_huge", "get_order", fixtureInstance, orderArgs{huge})
	for i := range 3 {
		f.call("task-b", "call_"+string(rune('a'+i)), "get_order", fixtureInstance, orderArgs{"A"})
	}
	cs := f.goClient("", nil, nil)

	res := callTool(t, cs, "get_call", map[string]any{"id": "task-b/call_huge"}, nil)
	whole, _ := json.Marshal(res)
	if res.IsError || len(whole) > 96<<10 {
		t.Fatalf("get_call of a 200 KiB call: isError %v, %d bytes", res.IsError, len(whole))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var doc struct {
		Arguments any      `json:"arguments"`
		Cut       []string `json:"cut"`
	}
	json.Unmarshal(b, &doc)
	args, isString := doc.Arguments.(string)
	if !isString || len(args) > 16<<10+8 || len(doc.Cut) == 0 || !strings.HasPrefix(doc.Cut[0], "arguments: 204814 bytes of JSON, the first 16384 kept") {
		t.Errorf("arguments %T (%d bytes), cut %q", doc.Arguments, len(args), doc.Cut)
	}
	if !strings.Contains(text(res), "Cut to stay bounded: arguments") {
		t.Errorf("the text does not say what was cut: %q", text(res))
	}

	var out ListCallsOutput
	callTool(t, cs, "list_calls", map[string]any{"limit": 100000}, &out)
	if out.Matched != 4 || len(out.Calls) != 4 {
		t.Errorf("limit 100000: %d of %d", len(out.Calls), out.Matched)
	}
	if n, _ := limit(100000); n != maxLimit {
		t.Errorf("limit(100000) = %d, want %d", n, maxLimit)
	}
}
