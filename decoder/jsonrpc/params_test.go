package jsonrpc

import (
	"testing"
)

// readParams reads params as those of one message of method.
func readParams(t *testing.T, method, params string) Message {
	t.Helper()
	b := Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`))
	if b.Err != nil {
		t.Fatalf("%s: %v", params, b.Err)
	}
	return b.Messages[0]
}

func TestCallParams(t *testing.T) {
	cases := []struct {
		rule    string
		params  string
		name    string
		problem bool
	}{
		{"name, arguments and _meta are read", `{"name":"get_order","arguments":{"orderId":"A-17"},"_meta":{"progressToken":3}}`, "get_order", false},
		{"arguments may be absent", `{"name":"ping"}`, "ping", false},
		{"name is required", `{"arguments":{}}`, "", true},
		{"name must be a string", `{"name":3}`, "", true},
		{"params must be an object", `["x"]`, "", true},
		{"a name spelled in another case is read as encoding/json reads it", `{"NAME":"x"}`, "x", false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			m := readParams(t, "tools/call", c.params)
			if (m.Call.Problem != "") != c.problem || m.Call.Name != c.name {
				t.Fatalf("%+v", m.Call)
			}
		})
	}
	m := readParams(t, "tools/call", `{"name":"x","arguments":{"a":1},"_meta":{"progressToken":"p"}}`)
	if string(m.Call.Arguments) != `{"a":1}` || string(m.Meta.ProgressToken) != `"p"` {
		t.Fatalf("%+v", m)
	}
	if m := readParams(t, "tools/call", `{"name":"x","_meta":"a"}`); m.Meta.Problem == "" || m.Call.Problem != "" {
		t.Fatalf("_meta that is not an object: %+v", m)
	}
	if m := readParams(t, "tools/call", `{"name":"x","_meta":{"agentarea/x":1e400}}`); m.Meta.Problem == "" {
		t.Fatalf("a number out of range: %+v", m.Meta)
	}
	if m := Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)).Messages[0]; m.Call.Problem == "" {
		t.Fatalf("no params: %+v", m.Call)
	}
}

func TestMeta(t *testing.T) {
	m := readParams(t, "tools/call", `{"name":"x","_meta":{
		"progressToken": 7,
		"agentarea/protocol": "1", "agentarea/task_id": "t1", "agentarea/tool_call_id": "c1",
		"agentarea/idempotency_key": "t1:c1", "agentarea/metadata": {"chatId": "c-9", "n": 2},
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "a=b", "baggage": "k=v",
		"X-AgentArea-Context": "eyJ.x.y",
		"other": 1}}`).Meta
	checks := []struct {
		rule string
		ok   bool
	}{
		{"agentarea/* keys are kept with their prefix", len(m.AgentArea) == 5 && m.AgentArea["agentarea/protocol"] == "1"},
		{"values are decoded as encoding/json decodes them", m.AgentArea["agentarea/metadata"].(map[string]any)["n"] == 2.0},
		{"task_id, tool_call_id and idempotency_key are read", m.TaskID() == "t1" && m.ToolCallID() == "c1" && m.IdempotencyKey() == "t1:c1"},
		{"progressToken is kept as raw JSON", string(m.ProgressToken) == "7"},
		{"MCP protocolVersion is read", m.ProtocolVersion == "2026-07-28"},
		{"trace context is read", m.TraceParent != "" && m.TraceState == "a=b" && m.Baggage == "k=v"},
		{"a context token in _meta is read (stdio)", m.ContextToken == "eyJ.x.y"},
		{"keys of other namespaces are left out", m.AgentArea["other"] == nil},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %+v", c.rule, m)
		}
	}
	if m := readParams(t, "tools/call", `{"name":"x","_meta":{"agentarea/task_id":3}}`).Meta; m.TaskID() != "" || m.AgentArea["agentarea/task_id"] != 3.0 {
		t.Fatalf("a value of the wrong type: %+v", m)
	}
}

func TestProgressTokenKeptAsWritten(t *testing.T) {
	cases := []struct{ meta, token string }{
		{`{"progressToken":12345678901234567890}`, `12345678901234567890`},
		{`{"progressToken": 1e3 }`, `1e3`},
		{`{"progressToken":"job<1>&co"}`, `"job<1>&co"`},
		{`{"progressToken":"t\u00e2che"}`, `"t\u00e2che"`},
		{`{"progressToken":1,"progressToken":2}`, `2`},
		{`{"PROGRESSTOKEN":5,"progressToken":6}`, `6`},
	}
	for _, c := range cases {
		if got := string(readParams(t, "tools/call", `{"name":"x","_meta":`+c.meta+`}`).Meta.ProgressToken); got != c.token {
			t.Errorf("%s: token %s, want %s", c.meta, got, c.token)
		}
	}
}

func TestProgress(t *testing.T) {
	cases := []struct {
		rule  string
		body  string
		err   bool
		total bool
	}{
		{"integer token, progress, total and message", `{"progressToken":3,"progress":5,"total":23,"message":"Reading sheet 5 of 23"}`, false, true},
		{"string token and float progress", `{"progressToken":"p-1","progress":0.25}`, false, false},
		{"null total is unknown", `{"progressToken":1,"progress":1,"total":null}`, false, false},
		{"progressToken is required", `{"progress":1}`, true, false},
		{"progressToken must be a string or number", `{"progressToken":{},"progress":1}`, true, false},
		{"progress is required", `{"progressToken":1}`, true, false},
		{"progress must be a number", `{"progressToken":1,"progress":"5"}`, true, false},
		{"total must be a number", `{"progressToken":1,"progress":5,"total":"x"}`, true, false},
		{"message must be a string", `{"progressToken":1,"progress":5,"message":3}`, true, false},
		{"a number out of range is not finite", `{"progressToken":1,"progress":1e400}`, true, false},
		{"params must be an object", `[1]`, true, false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			m := readParams(t, MethodProgress, c.body)
			if (m.ProgressErr != nil) != c.err {
				t.Fatalf("err = %v", m.ProgressErr)
			}
			if m.ProgressErr == nil && (m.Progress.Total != nil) != c.total {
				t.Fatalf("total %v", m.Progress.Total)
			}
		})
	}
	p := readParams(t, MethodProgress, `{"progressToken":3,"progress":5,"total":23,"message":"m"}`).Progress
	if string(p.Token) != "3" || p.Progress != 5 || *p.Total != 23 || p.Message != "m" || p.Done() {
		t.Fatalf("%+v", p)
	}
}

func TestCancel(t *testing.T) {
	m := readParams(t, MethodCancelled, `{"requestId":"c-7","reason":"timed out"}`)
	if string(m.Cancel.RequestID) != `"c-7"` || m.Cancel.Reason != "timed out" || m.Plain["requestId"] != "c-7" {
		t.Fatalf("%+v", m)
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
	// A value that is not an id still gets a key of its own text.
	for _, odd := range []string{`{"a":1}`, `true`, `1e9999999999999999999`} {
		if k := IDKey([]byte(odd)); k == "" || k == IDKey([]byte(`1`)) {
			t.Errorf("%s has key %q", odd, k)
		}
	}
}

func TestReadHead(t *testing.T) {
	for _, c := range []struct {
		head     string
		id       string
		method   string
		response bool
	}{
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"abcabc`, "2", "", true},
		{`{"jsonrpc":"2.0","method":"tools/call","id":"x","params":{"name":"echo","arguments":{"text":"ab`, `"x"`, "tools/call", false},
		{`{"jsonrpc":"2.0","error":{"code":-1,"mess`, "", "", true},
		{`[1,2`, "", "", false},
	} {
		h := ReadHead([]byte(c.head))
		if string(h.ID) != c.id || h.Method != c.method || h.Response != c.response {
			t.Errorf("%s: %+v", c.head, h)
		}
	}
}
