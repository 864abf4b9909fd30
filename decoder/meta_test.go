package decoder

import (
	"net/http"
	"testing"
)

func TestParseCallParams(t *testing.T) {
	cases := []struct {
		rule string
		body string
		name string
		err  bool
	}{
		{"name, arguments and _meta are read", `{"name":"get_order","arguments":{"orderId":"A-17"},"_meta":{"progressToken":3}}`, "get_order", false},
		{"arguments may be absent", `{"name":"ping"}`, "ping", false},
		{"name is required", `{"arguments":{}}`, "", true},
		{"name must be a string", `{"name":3}`, "", true},
		{"_meta must be an object", `{"name":"x","_meta":"a"}`, "", true},
		{"params must be an object", `["x"]`, "", true},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			cp, err := ParseCallParams([]byte(c.body))
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			if err == nil && cp.Name != c.name {
				t.Fatalf("name %q", cp.Name)
			}
		})
	}
	cp, _ := ParseCallParams([]byte(`{"name":"x","arguments":{"a":1},"_meta":{"progressToken":"p"}}`))
	if string(cp.Arguments) != `{"a":1}` || cp.Meta["progressToken"] != "p" {
		t.Fatalf("%+v", cp)
	}
}

func TestExtractMeta(t *testing.T) {
	cp, err := ParseCallParams([]byte(`{"name":"x","_meta":{
		"progressToken": 7,
		"agentarea/protocol": "1", "agentarea/task_id": "t1", "agentarea/tool_call_id": "c1",
		"agentarea/idempotency_key": "t1:c1", "agentarea/replayed": true,
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "a=b", "baggage": "k=v",
		"other": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	mi := ExtractMeta(cp.Meta)
	checks := []struct {
		rule string
		ok   bool
	}{
		{"agentarea/* keys are kept with their prefix", len(mi.AgentArea) == 5 && mi.AgentArea["agentarea/protocol"] == "1"},
		{"task_id, tool_call_id and idempotency_key are read", mi.TaskID == "t1" && mi.ToolCallID == "c1" && mi.IdempotencyKey == "t1:c1"},
		{"progressToken is kept as raw JSON", string(mi.ProgressToken) == "7"},
		{"MCP protocolVersion is read", mi.ProtocolVersion == "2026-07-28"},
		{"trace context is read", len(mi.Trace) == 3 && mi.Trace["tracestate"] == "a=b"},
		{"agentarea/replayed is read", mi.Replayed},
		{"keys of other namespaces are left out", mi.AgentArea["other"] == nil},
	}
	for _, c := range checks {
		t.Run(c.rule, func(t *testing.T) {
			if !c.ok {
				t.Fatalf("%+v", mi)
			}
		})
	}
	t.Run("string progress token", func(t *testing.T) {
		if mi := ExtractMeta(map[string]any{"progressToken": "abc"}); string(mi.ProgressToken) != `"abc"` {
			t.Fatalf("%s", mi.ProgressToken)
		}
	})
	t.Run("values of the wrong type are not read", func(t *testing.T) {
		mi := ExtractMeta(map[string]any{"agentarea/task_id": 3.0, "progressToken": map[string]any{}})
		if mi.TaskID != "" || mi.ProgressToken != nil || mi.AgentArea["agentarea/task_id"] != 3.0 {
			t.Fatalf("%+v", mi)
		}
	})
}

func TestCheckMCPHeaders(t *testing.T) {
	meta := MetaInfo{ProtocolVersion: "2026-07-28"}
	cases := []struct {
		rule    string
		headers map[string]string
		want    int
	}{
		{"matching headers give no warning", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_order"}, 0},
		{"absent headers give no warning (2025-era client)", nil, 0},
		{"protocol version mismatch warns", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, 1},
		{"method mismatch warns", map[string]string{"Mcp-Method": "tools/list"}, 1},
		{"name mismatch warns", map[string]string{"Mcp-Name": "delete_order"}, 1},
		{"header names are case-insensitive", map[string]string{"mcp-name": "delete_order", "MCP-METHOD": "ping"}, 2},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			ws := CheckMCPHeaders(h, "tools/call", "get_order", meta)
			if len(ws) != c.want {
				t.Fatalf("warnings %v", ws)
			}
			for _, w := range ws {
				if w.Code != "mcp_header_mismatch" {
					t.Fatalf("code %s", w.Code)
				}
			}
		})
	}
}
