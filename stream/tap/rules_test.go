package tap

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// idEchoUpstream answers every request with an empty result for its id.
func idEchoUpstream(t *testing.T) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[],"tools":[]}}`)
	}))
	t.Cleanup(up.Close)
	return up
}

// callWarnings is the warning codes on the call with this tool_call_id.
func callWarnings(s *model.Snapshot, toolCallID string) map[string]bool {
	codes := map[string]bool{}
	for _, c := range s.Calls {
		if c.ToolCallID == toolCallID {
			for _, w := range c.Warnings {
				codes[w.Code] = true
			}
			if len(c.Warnings) > 0 && c.Flags&model.FlagWarning == 0 {
				codes["<no warning flag>"] = true
			}
		}
	}
	return codes
}

// TestRuleWarnings: each rule of the contract that concerns one call, or
// calls of one task, is a warning with a stable code on the call it concerns.
func TestRuleWarnings(t *testing.T) {
	up := idEchoUpstream(t)
	type req struct {
		name   string
		args   any
		meta   func(m map[string]any)
		claims func(c jwt.MapClaims)
		header map[string]string
		token  string // reuse this token instead of minting one
	}
	cases := []struct {
		rule   string
		call   string // tool_call_id the warning is on
		reqs   []req
		want   string
		absent bool // the code must not appear (a call that follows the rule)
	}{
		{rule: "a contract call raises none of these", call: "ok", want: "", reqs: []req{{name: "get_order"}}},
		{rule: "Mcp-Session-Id on a platform call", call: "sess", want: "session_on_context_call",
			reqs: []req{{name: "get_order", header: map[string]string{"Mcp-Session-Id": "abc"}}}},
		{rule: "a required _meta key absent", call: "nows", want: "meta_key_missing",
			reqs: []req{{name: "get_order", meta: func(m map[string]any) { delete(m, "agentarea/workspace_id") },
				claims: func(c jwt.MapClaims) { c["workspace_id"] = "1b2e0c4d-aaaa-bbbb-cccc-123456789abc" }}}},
		{rule: "a required claim absent (jti)", call: "nojti", want: "claim_missing",
			reqs: []req{{name: "get_order", claims: func(c jwt.MapClaims) { delete(c, "jti") }}}},
		{rule: "no progressToken", call: "noprog", want: "progress_token_missing",
			reqs: []req{{name: "get_order", meta: func(m map[string]any) { delete(m, "progressToken") }}}},
		{rule: "params.name is the agent-facing name", call: "qual", want: "tool_name_qualified",
			reqs: []req{{name: "mcp__my_sheets__get_order"}}},
		{rule: "a retry with other arguments", call: "retry", want: "retry_arguments_changed",
			reqs: []req{{name: "get_order", args: map[string]any{"id": "A-1"}}, {name: "get_order", args: map[string]any{"id": "B-2"}}}},
		{rule: "a retry with the same arguments", call: "retry-same", want: "retry_arguments_changed", absent: true,
			reqs: []req{{name: "get_order", args: map[string]any{"id": "A-1", "n": 1}}, {name: "get_order", args: json.RawMessage(`{ "n":1.0e0 ,"id":"A-1"}`)}}},
		{rule: "the very same token twice", call: "replay", want: "token_reused",
			reqs: []req{{name: "get_order"}, {name: "get_order", token: "first"}}},
		{rule: "end_user_id changes within a task", call: "eu-2", want: "end_user_id_changed",
			reqs: []req{{name: "get_order", meta: func(m map[string]any) { m["agentarea/end_user_id"] = "user-1" }},
				{name: "get_order", meta: func(m map[string]any) {
					m["agentarea/end_user_id"] = "user-2"
					m["agentarea/tool_call_id"] = "eu-2"
					m["agentarea/idempotency_key"] = "task-eu:eu-2"
				}}}},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			h := startTap(t, Config{Upstream: up.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
			task := "task-" + tc.call
			if tc.call == "eu-2" {
				task = "task-eu"
			}
			var first string
			for i, r := range tc.reqs {
				id := "call-" + tc.call
				if tc.call == "eu-2" && i == 0 {
					id = "eu-1"
				} else if tc.call == "eu-2" {
					id = "eu-2"
				}
				meta := contractMeta(task, id, i+1)
				if r.meta != nil {
					r.meta(meta)
				}
				n, edit := i, r.claims
				tok := mintToken(t, testSecret, r.name, meta, func(c jwt.MapClaims) {
					c["jti"] = fmt.Sprintf("0b8f6a1e-6a8e-4f0e-b3c1-%012d", n) // a new token per call
					if edit != nil {
						edit(c)
					}
				})
				if r.token == "first" {
					tok = first
				}
				if i == 0 {
					first = tok
				}
				args := r.args
				if args == nil {
					args = map[string]any{}
				}
				hdr := map[string]string{"X-AgentArea-Context": tok}
				for k, v := range r.header {
					hdr[k] = v
				}
				post(t, h.url, callBody(t, i+1, r.name, args, meta), hdr)
			}
			h.shutdown()
			s := h.store.Snapshot()
			want := tc.call
			if want != "eu-2" {
				want = "call-" + tc.call
			}
			got := callWarnings(s, want)
			if tc.call == "eu-2" {
				// The tap parses exchanges side by side: the change is found
				// on whichever of the two calls was parsed second.
				for k, v := range callWarnings(s, "eu-1") {
					got[k] = got[k] || v
				}
			}
			if got["<no warning flag>"] {
				t.Fatalf("warnings without the warning flag: %v", got)
			}
			for _, code := range []string{"session_on_context_call", "meta_key_missing", "claim_missing", "progress_token_missing",
				"tool_name_qualified", "retry_arguments_changed", "token_reused", "end_user_id_changed"} {
				if code == tc.want && !tc.absent {
					if !got[code] {
						t.Errorf("no %s on call %s; warnings %v\n%s", code, want, got, dump(s))
					}
				} else if got[code] {
					t.Errorf("unexpected %s on call %s", code, want)
				}
			}
		})
	}
}

// TestContextOnOtherMethod: a token (or agentarea/* keys) on tools/list is
// warned about; the platform sends context only on tools/call.
func TestContextOnOtherMethod(t *testing.T) {
	up := idEchoUpstream(t)
	h := startTap(t, Config{Upstream: up.URL})
	tok := mintToken(t, testSecret, "get_order", contractMeta("t", "c", 1), nil)
	post(t, h.url, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), map[string]string{"X-AgentArea-Context": tok})
	post(t, h.url, []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"_meta":{"agentarea/task_id":"t"}}}`), nil)
	post(t, h.url, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), nil)
	h.shutdown()
	n := 0
	for _, e := range allEvents(h.store.Snapshot()) {
		if e.Kind == model.KindWarning && e.Code == "context_on_other_method" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d context_on_other_method warnings, want 2 (tools/list with a token, resources/list with agentarea keys)\n%s", n, dump(h.store.Snapshot()))
	}
}
