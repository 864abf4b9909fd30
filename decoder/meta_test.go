package decoder

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
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
	stateless := MetaInfo{ProtocolVersion: "2026-07-28"}
	full := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_order"}
	with := func(over map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for k, v := range over {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	cases := []struct {
		rule    string
		headers map[string]string
		meta    MetaInfo
		want    string
	}{
		{"matching headers give no warning", full, stateless, ""},
		{"absent headers give no warning from a 2025-era client", nil, MetaInfo{}, ""},
		{"2025-11-25 needs no Mcp-Method", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, MetaInfo{}, ""},
		{"protocol version mismatch warns", with(map[string]string{"MCP-Protocol-Version": "2025-11-25"}), stateless, "mcp_header_mismatch"},
		{"method mismatch warns", with(map[string]string{"Mcp-Method": "tools/list"}), stateless, "mcp_header_mismatch"},
		{"name mismatch warns", with(map[string]string{"Mcp-Name": "delete_order"}), stateless, "mcp_header_mismatch"},
		{"header names are case-insensitive", map[string]string{"mcp-protocol-version": "2026-07-28", "mcp-name": "delete_order", "MCP-METHOD": "ping"}, stateless, "mcp_header_mismatch,mcp_header_mismatch"},
		{"an unknown protocol version warns", map[string]string{"MCP-Protocol-Version": "2099-01-01"}, MetaInfo{}, "mcp_protocol_version_unknown"},
		{"a 2026-07-28 request without Mcp-Method and Mcp-Name warns", map[string]string{"MCP-Protocol-Version": "2026-07-28"}, stateless, "mcp_header_missing"},
		{"_meta saying 2026-07-28 without the version header warns", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_order"}, stateless, "mcp_header_missing"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			ws := CheckMCPHeaders(h, "tools/call", "get_order", c.meta)
			var codes []string
			for _, w := range ws {
				codes = append(codes, string(w.Code))
			}
			if strings.Join(codes, ",") != c.want {
				t.Fatalf("warnings %v, want %s", ws, c.want)
			}
		})
	}
}

func TestIDKey(t *testing.T) {
	same := [][]string{
		{`"tok-1"`, ` "tok-1" `},
		{`"job<1>&co"`, `"job\u003c1\u003e\u0026co"`},
		{`"tâche-1"`, `"t\u00e2che-1"`, `"t\u00E2che-1"`},
		{`"a/b"`, `"a\/b"`},
		{`"é"`, `"\u00e9"`},
		{`"\b"`, `"\u0008"`},
		{"\"caf\xe9\"", `"caf\ufffd"`}, // invalid UTF-8 reads as U+FFFD, as everywhere
		{`12345678901234567890`, `1.2345678901234567890e19`, `12345678901234567890.000`},
		{`1000`, `1e3`, `1E+3`, `10.0e2`, `0.1e4`},
		{`0.5`, `5e-1`, `50E-2`},
		{`0`, `-0`, `0.000`, `0e99`},
		{`-7`, `-7.0`, `-70e-1`},
	}
	for _, forms := range same {
		for _, f := range forms[1:] {
			if IDKey([]byte(forms[0])) != IDKey([]byte(f)) {
				t.Errorf("%s and %s have keys %q and %q", forms[0], f, IDKey([]byte(forms[0])), IDKey([]byte(f)))
			}
		}
	}
	different := [][2]string{
		{`"1"`, `1`},
		{`12345678901234567890`, `12345678901234567891`},
		{`12345678901234567890`, `12345678901234567000`},
		{`"a"`, `"A"`},
		{`1`, `-1`},
		{`1`, `10`},
		{`0.1`, `1`},
		{`"tok"`, `"tok "`},
	}
	for _, d := range different {
		if IDKey([]byte(d[0])) == IDKey([]byte(d[1])) {
			t.Errorf("%s and %s share the key %q", d[0], d[1], IDKey([]byte(d[0])))
		}
	}
	for _, none := range []string{``, `null`, ` null `} {
		if k := IDKey([]byte(none)); k != "" {
			t.Errorf("%q has key %q, want none", none, k)
		}
	}
	// Text that is not a valid id still gets a key of its own text.
	for _, odd := range []string{`01`, `1.`, `1e`, `--1`, `"open`, `{"a":1}`, `true`, `1e9999999999999999999`} {
		if k := IDKey([]byte(odd)); k == "" || k == IDKey([]byte(`1`)) {
			t.Errorf("%s has key %q", odd, k)
		}
	}
}

func TestProgressTokenKeptAsWritten(t *testing.T) {
	cases := []struct{ meta, token string }{
		{`{"progressToken":12345678901234567890}`, `12345678901234567890`},
		{`{"progressToken": 1e3 }`, `1e3`},
		{`{"progressToken":"job<1>&co"}`, `"job<1>&co"`},
		{`{"progressToken":"t\u00e2che"}`, `"tâche"`},
		{`{"progressToken":1,"progressToken":2}`, `2`},
		{`{"PROGRESSTOKEN":5,"progressToken":6}`, `6`},
		{`{"progressToken":true}`, ``},
	}
	for _, c := range cases {
		cp, err := ParseCallParams([]byte(`{"name":"x","_meta":` + c.meta + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.meta, err)
		}
		if got := string(ExtractMeta(cp.Meta).ProgressToken); got != c.token {
			t.Errorf("%s: token %s, want %s", c.meta, got, c.token)
		}
	}
}

// marshalString's shortcut writes what the encoder writes.
func FuzzMarshalString(f *testing.F) {
	for _, s := range []string{"", "tok-1", "a<b>&c", `q"uote`, `back\slash`, "tab\t", "é", "\x7f", "\u2028", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(s) != nil {
			t.Skip()
		}
		if got, want := string(marshalString(s)), strings.TrimSuffix(buf.String(), "\n"); got != want {
			t.Errorf("marshalString(%q) = %s, the encoder writes %s", s, got, want)
		}
	})
}
