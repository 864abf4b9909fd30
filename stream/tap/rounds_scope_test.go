package tap

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// askOnceServer answers a tools/call without inputResponses with
// input_required and a requestState of "same" (every call the same
// state, as a server that seals nothing might), and one with them with a
// result.
func askOnceServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				InputResponses json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		if req.Params.InputResponses == nil {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"same",`+
				`"inputRequests":{"q":{"method":"elicitation/create","params":{"message":"sure?"}}}}}`, req.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func roundBody(id int, args string, later bool) []byte {
	extra := ""
	if later {
		extra = `,"requestState":"same","inputResponses":{"q":{"action":"accept"}}`
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy","arguments":%s%s}}`, id, args, extra))
}

// Rounds are joined within their MCP session: two sessions' calls with the
// same state and arguments stay two calls, each of two rounds; a later
// round whose arguments differ is not the same call.
func TestRoundsJoinedWithinTheirSession(t *testing.T) {
	h := startTap(t, Config{Upstream: askOnceServer(t)})
	session := func(s string) map[string]string { return map[string]string{"Mcp-Session-Id": s} }
	post(t, h.url, roundBody(1, `{"env":"a"}`, false), session("s-1"))
	post(t, h.url, roundBody(1, `{"env":"a"}`, false), session("s-2"))
	// s-1 first: the latest waiting is s-2's, which it must not take.
	post(t, h.url, roundBody(2, `{"env":"a"}`, true), session("s-1"))
	post(t, h.url, roundBody(2, `{"env":"a"}`, true), session("s-2"))
	post(t, h.url, roundBody(1, `{"env":"b"}`, false), session("s-3"))
	post(t, h.url, roundBody(2, `{"env":"c"}`, true), session("s-3"))
	h.shutdown()
	s := h.store.Snapshot()
	byOutcome := map[string]int{}
	for _, c := range s.Calls {
		if c.Tool == "deploy" {
			byOutcome[fmt.Sprintf("%s rounds=%d", c.Status, c.Rounds())]++
		}
	}
	want := map[string]int{"ok rounds=2": 2, string(model.StatusNeedsInput) + " rounds=1": 1, "ok rounds=1": 1}
	if fmt.Sprint(byOutcome) != fmt.Sprint(want) {
		t.Fatalf("calls %v, want %v\n%s", byOutcome, want, dump(s))
	}
	for _, c := range s.Calls {
		if c.Rounds() != 2 {
			continue
		}
		// Each session's round 2 joined its own round 1.
		sessions := map[string]bool{}
		for _, e := range c.Timeline() {
			if e.Kind == model.KindToolCall {
				sessions[e.Headers["Mcp-Session-Id"]] = true
			}
		}
		if len(sessions) != 1 {
			t.Errorf("call %s joins rounds of sessions %v", c.ID, sessions)
		}
	}
}

// pendingCall is a call of deploy on conn, as the registry keeps and
// matches it: one that waits (round > 0) writes its arguments spaced.
func pendingCall(conn, state string, round int32) *call {
	args := `{"env":"a"}`
	if round > 0 {
		args = "{ \"env\": \"a\" }"
	}
	m := &jsonrpc.Message{Call: jsonrpc.CallParams{Name: "deploy", Arguments: json.RawMessage(args), RequestState: state}}
	c := &call{msg: m, tool: "deploy", scope: scope{conn: conn}}
	c.callEv.Exchange, c.callEv.Round = conn, round
	return c
}

// Without a session, a round is matched on its connection, else by the
// state alone when one round waits under it (whatever the whitespace of
// its arguments); two on other connections are ambiguous, and nothing
// matches. The rounds kept are bounded.
func TestPendingRoundsMatch(t *testing.T) {
	r := newRegistry()
	r.awaitNextRound(pendingCall("c1", "", 1), &jsonrpc.Result{RequestState: "st"})
	if p := r.takePrevRound(pendingCall("c2", "st", 0)); p == nil || p.exchange != "c1" || p.round != 1 {
		t.Fatalf("by the state alone: %+v", p)
	}
	if p := r.takePrevRound(pendingCall("c2", "st", 0)); p != nil {
		t.Fatalf("taken twice: %+v", p)
	}
	r.awaitNextRound(pendingCall("c1", "", 1), &jsonrpc.Result{RequestState: "st"})
	r.awaitNextRound(pendingCall("c2", "", 1), &jsonrpc.Result{RequestState: "st"})
	if p := r.takePrevRound(pendingCall("c3", "st", 0)); p != nil {
		t.Fatalf("two rounds on other connections: %+v taken", p)
	}
	if p := r.takePrevRound(pendingCall("c2", "st", 0)); p == nil || p.exchange != "c2" {
		t.Fatalf("on its connection: %+v", p)
	}
	for i := range maxWaiting + 10 {
		r.awaitNextRound(pendingCall(fmt.Sprint("x", i), "", 1), &jsonrpc.Result{RequestState: fmt.Sprint("s", i)})
	}
	if len(r.waitOrder) != maxWaiting || r.waiting[stateKey("s0")] != nil || r.waiting[stateKey("st")] != nil {
		t.Fatalf("%d rounds kept, the oldest still there: %v", len(r.waitOrder), r.waiting[stateKey("s0")])
	}
}
