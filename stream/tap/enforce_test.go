package tap

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// contractUpstream answers every tools/call with a small result, counting hits.
func contractUpstream(t *testing.T, n *hits) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.add()
		body, _ := io.ReadAll(r.Body)
		read := jsonrpc.Read(body)
		msgs := read.Messages
		if read.Err != nil || len(msgs) == 0 {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msgs[0].ID) + `,"result":{"content":[{"type":"text","text":"ran"}]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

type rpcErrorBody struct {
	ID    json.RawMessage `json:"id"`
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestEnforceVerdicts(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	other := []byte("another-secret-that-is-long-enough-000000")
	old := time.Now().Add(-20 * time.Minute)
	cases := []struct {
		name       string
		credHeader string // configured credential header
		headers    func(token string) map[string]string
		meta       func(m map[string]any)
		token      func(t *testing.T, meta map[string]any) string
		batch      bool
		status     int
		code       int
	}{
		{name: "valid", status: 200},
		{name: "missing token", token: func(*testing.T, map[string]any) string { return "" }, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "bad signature", token: func(t *testing.T, m map[string]any) string { return mintToken(t, other, "lookup", m, nil) }, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "expired", token: func(t *testing.T, m map[string]any) string {
			return mintToken(t, testSecret, "lookup", m, func(c jwt.MapClaims) { c["iat"], c["exp"] = old.Unix(), old.Add(300*time.Second).Unix() })
		}, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "wrong aud", token: func(t *testing.T, m map[string]any) string {
			return mintToken(t, testSecret, "lookup", m, func(c jwt.MapClaims) { c["aud"] = "some-other-instance" })
		}, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "wrong iss", token: func(t *testing.T, m map[string]any) string {
			return mintToken(t, testSecret, "lookup", m, func(c jwt.MapClaims) { c["iss"] = "mallory" })
		}, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "not a token", token: func(*testing.T, map[string]any) string { return "not-a-jwt" }, status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "tool mismatch", token: func(t *testing.T, m map[string]any) string {
			return mintToken(t, testSecret, "delete_everything", m, nil)
		}, status: 403, code: jsonrpc.CodeForbidden},
		{name: "meta mismatch", meta: func(m map[string]any) { m["agentarea/task_id"] = "another-task" },
			token: func(t *testing.T, m map[string]any) string {
				return mintToken(t, testSecret, "lookup", m, func(c jwt.MapClaims) { c["task_id"] = "task-1" })
			}, status: 403, code: jsonrpc.CodeForbidden},
		{name: "unknown major protocol", meta: func(m map[string]any) { m["agentarea/protocol"] = "2" }, status: 403, code: jsonrpc.CodeForbidden},
		{name: "malformed context value", meta: func(m map[string]any) { m["agentarea/metadata"] = "not an object" }, status: 400, code: jsonrpc.CodeInvalidParams},
		{name: "missing credential", credHeader: "X-API-Key", status: 401, code: jsonrpc.CodeUnauthorized},
		{name: "credential present", credHeader: "X-API-Key", headers: func(string) map[string]string { return map[string]string{"X-API-Key": "k-123"} }, status: 200},
		{name: "tools/call in a batch", batch: true, status: 400, code: jsonrpc.CodeInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret},
				InstanceID: testInstanceID, CredentialHeader: tc.credHeader})
			meta := contractMeta("task-1", "call-1", 41)
			if tc.meta != nil {
				tc.meta(meta)
			}
			token := mintToken(t, testSecret, "lookup", meta, nil)
			if tc.token != nil {
				token = tc.token(t, meta)
			}
			headers := map[string]string{}
			if tc.headers != nil {
				headers = tc.headers(token)
			}
			if token != "" {
				headers[model.ContextHeader] = token
			}
			body := callBody(t, 41, "lookup", map[string]any{"q": 1}, meta)
			if tc.batch {
				body = []byte("[" + string(body) + `,{"jsonrpc":"2.0","id":42,"method":"tools/list"}]`)
			}
			before := n.count()
			status, hdr, resp := post(t, h.url, body, headers)
			forwarded := n.count() - before
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, resp)
			}
			c := h.waitCall("lookup")
			r := c.LastAttempt().Result
			if tc.status == 200 {
				if forwarded != 1 || c.Status != model.StatusOK || c.Context.Verdict != model.VerdictValid {
					t.Fatalf("forwarded %d, status %s, verdict %s (%s)", forwarded, c.Status, c.Context.Verdict, c.Context.Reason)
				}
				return
			}
			var rpc rpcErrorBody
			if err := json.Unmarshal(resp, &rpc); err != nil || string(rpc.ID) != "41" || rpc.Error.Code != tc.code {
				t.Fatalf("answer %s (%v), want id 41 code %d", resp, err, tc.code)
			}
			if hdr.Get("Content-Type") != "application/json" || forwarded != 0 {
				t.Fatalf("content type %q, forwarded %d times", hdr.Get("Content-Type"), forwarded)
			}
			if r.HTTPStatus != tc.status || r.RPCCode != tc.code || c.Context.Verdict != model.VerdictRejected || !strings.Contains(r.Error, "--enforce") {
				t.Fatalf("recorded http %d rpc %d error %q verdict %s", r.HTTPStatus, r.RPCCode, r.Error, c.Context.Verdict)
			}
		})
	}
}

// TestWithoutEnforceRejectedCallsPass: without --enforce the tap only
// reports what a server must answer; the call is forwarded.
func TestWithoutEnforceRejectedCallsPass(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	h := startTap(t, Config{Upstream: upstream.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
	meta := contractMeta("task-2", "call-2", 1)
	token := mintToken(t, testSecret, "other_tool", meta, nil)
	status, _, _ := post(t, h.url, callBody(t, 1, "lookup", map[string]any{}, meta), map[string]string{model.ContextHeader: token})
	if status != 200 || n.count() != 1 {
		t.Fatalf("status %d, upstream hits %d", status, n.count())
	}
	c := h.waitCall("lookup")
	if c.Context.Verdict != model.VerdictRejected || c.Context.HTTPStatus != 403 || c.Context.RPCCode != jsonrpc.CodeForbidden || c.Status != model.StatusOK {
		t.Errorf("verdict %s answer %d/%d status %s", c.Context.Verdict, c.Context.HTTPStatus, c.Context.RPCCode, c.Status)
	}
}

// TestBatchForwarded: without --enforce a batch passes; its tools/call is
// reported (with the 400/-32600 a server owes it) and so is the rest.
func TestBatchForwarded(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}},{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"bb"}]}}]`))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	batch := bytes.Join([][]byte{callBody(t, 1, "one", map[string]any{}, nil), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), callBody(t, 3, "two", map[string]any{}, nil)}, []byte(","))
	status, _, _ := post(t, h.url, append(append([]byte("["), batch...), ']'), nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	one, two := h.waitCall("one"), h.waitCall("two")
	if one.ID == two.ID || one.LastAttempt().Result.TextChars != 1 || two.LastAttempt().Result.TextChars != 2 {
		t.Errorf("calls %s and %s, text %d and %d", one.ID, two.ID, one.LastAttempt().Result.TextChars, two.LastAttempt().Result.TextChars)
	}
	s := h.store.Snapshot()
	if !hasWarning(s, "tools_call_in_batch") || one.Context != nil { // plain MCP: no verdict
		t.Errorf("batch not flagged, or a verdict on plain MCP (%+v)\n%s", one.Context, dump(s))
	}
}

// TestEnforceLargeBodyRefused: with --enforce, a request body over the
// parse limit cannot be verified, so it is not forwarded: 413/-32600, with
// a warning that says why. (It was forwarded unverified before issue 17.)
func TestEnforceLargeBodyRefused(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	h := startTap(t, Config{Upstream: upstream.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID, Enforce: true, MaxParseBytes: 4 << 10})
	body := callBody(t, 1, "lookup", map[string]any{"pad": strings.Repeat("x", 8<<10)}, contractMeta("task-9", "call-9", 1))
	status, _, resp := post(t, h.url, body, nil) // no token at all
	var rpc rpcErrorBody
	if n.count() != 0 || status != http.StatusRequestEntityTooLarge || json.Unmarshal(resp, &rpc) != nil || rpc.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("upstream hits %d, answer %d %s; want 413/-32600 and nothing forwarded", n.count(), status, resp)
	}
	h.waitFor("enforce_unverified_large_body", func(s *model.Snapshot) bool { return hasWarning(s, "enforce_unverified_large_body") })
}

// TestEnforceMalformedContext: a tools/call whose params cannot be read as
// the contract's (a _meta that is not an object, a name that is not a
// string, an agentarea/* value of the wrong type) is answered 400/-32602
// under --enforce even with a valid token (issue 11 item 6).
func TestEnforceMalformedContext(t *testing.T) {
	meta := contractMeta("task-1", "call-1", 41)
	metaJSON, _ := json.Marshal(meta)
	withMeta := func(key, value string) string {
		m := map[string]json.RawMessage{}
		json.Unmarshal(metaJSON, &m)
		m[key] = json.RawMessage(value)
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct{ name, params string }{
		{"_meta a string", `{"name":"lookup","arguments":{},"_meta":"agentarea"}`},
		{"_meta an array", `{"name":"lookup","arguments":{},"_meta":[` + string(metaJSON) + `]}`},
		{"name a number", `{"name":7,"arguments":{},"_meta":` + string(metaJSON) + `}`},
		{"task_id a number", `{"name":"lookup","arguments":{},"_meta":` + withMeta("agentarea/task_id", `5`) + `}`},
		{"end_user_id null", `{"name":"lookup","arguments":{},"_meta":` + withMeta("agentarea/end_user_id", `null`) + `}`},
		{"metadata an array", `{"name":"lookup","arguments":{},"_meta":` + withMeta("agentarea/metadata", `[]`) + `}`},
		{"params an array", `[{"name":"lookup"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n hits
			upstream := contractUpstream(t, &n)
			h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
			token := mintToken(t, testSecret, "lookup", meta, nil)
			body := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":` + tc.params + `}`
			status, _, resp := post(t, h.url, []byte(body), map[string]string{model.ContextHeader: token})
			var rpc rpcErrorBody
			if status != http.StatusBadRequest || json.Unmarshal(resp, &rpc) != nil || rpc.Error.Code != jsonrpc.CodeInvalidParams || string(rpc.ID) != "41" || n.count() != 0 {
				t.Fatalf("answer %d %s (upstream hits %d), want 400 -32602 id 41, not forwarded", status, resp, n.count())
			}
		})
	}
}

// TestEnforceNeedsSecret: --enforce without a secret could verify nothing,
// so the tap refuses to be made (issue 11 item 6).
func TestEnforceNeedsSecret(t *testing.T) {
	_, err := New(Config{Upstream: "http://127.0.0.1:9/mcp", Enforce: true}, model.SinkFunc(func(model.Event) {}))
	if err == nil || !strings.Contains(err.Error(), "--enforce needs a context secret") {
		t.Fatalf("New = %v, want a refusal", err)
	}
}
