package tap

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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

// TestCrossIndexBounded: however many calls pass, and however long their
// keys, the cross-call index keeps at most maxCrossEntries small entries.
func TestCrossIndexBounded(t *testing.T) {
	var x crossIndex
	long := strings.Repeat("k", 1<<10)
	for i := 0; i < maxCrossEntries+1000; i++ {
		id := fmt.Sprintf("%s-%d", long, i)
		x.check(crossCall{exchange: "1", idemKey: id, taskID: id, claims: map[string]any{"jti": id},
			meta: map[string]any{"agentarea/end_user_id": id}})
	}
	for name, m := range map[string]*boundedMap{"args": &x.args, "jtis": &x.jtis, "endUsers": &x.endUsers} {
		if len(m.m) > maxCrossEntries || len(m.order) > maxCrossEntries {
			t.Errorf("%s holds %d entries, order %d", name, len(m.m), len(m.order))
		}
		for k, v := range m.m {
			if len(k) > 64 || len(v[0]) > 64 {
				t.Fatalf("%s keeps a long key or value (%d, %d bytes)", name, len(k), len(v[0]))
			}
		}
	}
	// Exactly the newest maxCrossEntries keys are kept, however often the
	// ring went round.
	var b boundedMap
	for i := 0; i < 3*maxCrossEntries+7; i++ {
		b.put(strconv.Itoa(i), [2]string{"v", "1"})
	}
	for i := 0; i < 3*maxCrossEntries+7; i++ {
		if _, ok := b.get(strconv.Itoa(i)); ok != (i >= 2*maxCrossEntries+7) {
			t.Fatalf("key %d kept %v", i, ok)
		}
	}
	// The oldest were forgotten, the newest still match.
	last := fmt.Sprintf("%s-%d", long, maxCrossEntries+999)
	if ws := x.check(crossCall{exchange: "2", claims: map[string]any{"jti": last}}); len(ws) != 1 || ws[0].Code != "token_reused" {
		t.Fatalf("the newest jti was forgotten: %v", ws)
	}
}

// TestCrossIndexLongValues: a long key or value is matched by its digest:
// the same long value is the same, another one of the same length is not.
func TestCrossIndexLongValues(t *testing.T) {
	var x crossIndex
	long := strings.Repeat("u", 200)
	task := strings.Repeat("t", 100)
	call := func(ex, endUser string) crossCall {
		return crossCall{exchange: ex, taskID: task, meta: map[string]any{"agentarea/end_user_id": endUser}}
	}
	if ws := x.check(call("1", long)); len(ws) != 0 {
		t.Fatalf("first call: %v", ws)
	}
	if ws := x.check(call("2", long)); len(ws) != 0 {
		t.Fatalf("the same long end_user_id warned: %v", ws)
	}
	if ws := x.check(call("3", strings.Repeat("v", 200))); len(ws) != 1 || ws[0].Code != model.WarnEndUserIDChanged {
		t.Fatalf("another long end_user_id: %v", ws)
	}
}

// put is set for a key not looked up first (the tests' way in).
func (b *boundedMap) put(k string, v [2]string) {
	_, present := b.get(k)
	b.set(k, v, present)
}
