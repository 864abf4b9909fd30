package tap

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// FuzzEnforceAgainstSDK checks the --enforce decision against the go-sdk's
// own decoding: the same body (with or without a valid token for get_order)
// goes to the tap's decision and to a real go-sdk v1.8.0 server handler in
// process. Whenever the tap would forward and the server ran a tool, the
// tap must have verified (verdict valid) a call with that very name, the
// same agentarea/* keys and progressToken in _meta, and the same token.
func FuzzEnforceAgainstSDK(f *testing.F) {
	g := newGuardedServer()
	tp, err := New(Config{Upstream: "http://127.0.0.1:9/mcp", Enforce: true, Secrets: [][]byte{testSecret},
		InstanceID: testInstanceID}, model.SinkFunc(func(model.Event) {}))
	if err != nil {
		f.Fatal(err)
	}
	meta := contractMeta("task-1", "call-1", 1)
	token, minted := mintToken(f, testSecret, "get_order", meta, nil), time.Now()
	f.Add(callBody(f, 1, "get_order", map[string]any{"orderId": "A-17"}, meta), true)
	f.Add(callBody(f, "x", "delete_all", map[string]any{}, meta), true)
	f.Add(callBody(f, 2, "get_order", map[string]any{}, nil), false)
	for _, b := range bypassBodies(f) {
		f.Add([]byte(b.body), b.token != "")
	}
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all"},"Method":"ping"}]`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"delete_all","name":"get_order"}}`), true)

	f.Fuzz(func(t *testing.T, body []byte, withToken bool) {
		if time.Since(minted) > time.Minute { // a token expires; a fuzz run does not
			token, minted = mintToken(t, testSecret, "get_order", meta, nil), time.Now()
		}
		header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
		if withToken {
			header.Set(model.ContextHeader, token)
		}
		ex := &exchange{t: tp, id: "1", start: time.Now(), method: http.MethodPost, header: header, body: body, bodyWhole: true}
		judged := tp.judgeRequest(ex) // as ServeHTTP judges it under --enforce
		ex.req = tp.sortRequest(ex, judged, true)
		forwarded := judged.Answer == nil

		before := len(g.calls())
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header = header.Clone()
		g.handler.ServeHTTP(httptest.NewRecorder(), req)
		ran := g.calls()[before:]
		if !forwarded {
			return
		}
		for _, r := range ran {
			if !verifiedAs(ex.req, r, header.Get(model.ContextHeader)) {
				t.Fatalf("the tap forwards %q and the go-sdk ran %s with _meta %v, which the tap did not verify (tap calls: %s)",
					body, r.name, r.meta, describeCalls(ex.req))
			}
		}
	})
}

// verifiedAs reports whether the tap verified a call the server ran as r,
// with the token the server received.
func verifiedAs(pr *parsedRequest, r ranCall, token string) bool {
	for _, c := range pr.calls {
		ctx := c.callEv.Context
		if ctx == nil || ctx.Verdict != model.VerdictValid || c.tool != r.name {
			continue
		}
		if canonicalJSON(contextKeys(c.msg.Meta.AgentArea)) != canonicalJSON(contextKeys(r.meta)) {
			continue
		}
		if canonicalJSON(r.meta[jsonrpc.MetaProgressToken]) != canonicalRaw(c.msg.Meta.ProgressToken) {
			continue
		}
		return r.token == token
	}
	return false
}

func contextKeys(meta map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range meta {
		if strings.HasPrefix(k, jsonrpc.AgentAreaPrefix) {
			out[k] = v
		}
	}
	return out
}

// canonicalJSON writes v as JSON after a round trip through any, so that
// numbers and key order compare by value.
func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unmarshalable"
	}
	return canonicalRaw(b)
}

func canonicalRaw(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "invalid"
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func describeCalls(pr *parsedRequest) string {
	var b strings.Builder
	for _, c := range pr.calls {
		b.WriteString(c.tool + " " + string(c.callEv.Context.Verdict) + " " + c.callEv.Context.Reason + "; ")
	}
	return b.String()
}
