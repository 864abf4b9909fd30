package tap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"toolscope/model"
	"toolscope/output"
)

// roundsServer answers a tools/call without inputResponses with the
// result firstRound (a JSON object, written by hand), one with them and
// the requestState "st-1" with asksAgain when given, and the others with a
// plain result.
func roundsServer(t *testing.T, firstRound string, asksAgain ...string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				InputResponses json.RawMessage `json:"inputResponses"`
				RequestState   string          `json:"requestState"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		result := `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`
		switch {
		case req.Params.InputResponses == nil:
			result = firstRound
		case req.Params.RequestState == "st-1" && len(asksAgain) > 0 && asksAgain[0] != "":
			result = asksAgain[0]
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deployBody is a tools/call of deploy with the params' other members
// (after "arguments", as written).
func deployBody(id int, more string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"prod"}%s}}`, id, more))
}

// roundWarnings are the warnings of the rounds' rules the deploy calls of
// an MCP session carry.
func roundWarnings(s *model.Snapshot, session string) []string {
	var out []string
	for _, c := range s.Calls {
		if tl := c.Timeline(); c.Tool != "deploy" || len(tl) == 0 || tl[0].Headers["Mcp-Session-Id"] != session {
			continue
		}
		for _, w := range c.Warnings {
			switch model.WarningCode(w.Code) {
			case model.WarnInputRequiredEmpty, model.WarnInputCapabilityUndeclared, model.WarnInputResponsesMismatch, model.WarnRequestStateNotReturned:
				out = append(out, w.Code+": "+w.Message)
			}
		}
	}
	return out
}

// askAgain asks, in round 2, the same question again under a new state.
const askAgain = `{"resultType":"input_required","requestState":"st-2","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Sure?"}}}}`

const askConfirm = `{"resultType":"input_required","requestState":"st-1","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Deploy?","requestedSchema":{"type":"object"}}}}}`

func TestInputRequiredRules(t *testing.T) {
	session := func(s string) map[string]string { return map[string]string{"Mcp-Session-Id": s} }
	caps := func(c string) string {
		return `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c + `}`
	}
	for _, tc := range []struct {
		name, firstRound string
		requests         []string // the params' members after arguments, in turn, on session s-1
		want             string   // the rounds' warnings, "" for none
		asksAgain        string   // what the server answers round 2 (roundsServer)
	}{
		{"neither inputRequests nor requestState", `{"resultType":"input_required","inputRequests":{}}`,
			[]string{""}, "input_required_empty", ""},
		{"a state alone is a server shedding load", `{"resultType":"input_required","requestState":"busy"}`,
			[]string{""}, "", ""},
		{"an elicitation the client did not declare", askConfirm,
			[]string{caps(`{"roots":{}}`)}, `input_capability_undeclared: the server asks for input the client's capabilities do not declare ("confirm" needs elicitation)`, ""},
		{"an elicitation the client declared", askConfirm,
			[]string{caps(`{"elicitation":{"form":{}}}`)}, "", ""},
		{"no capabilities declared: not judged", askConfirm,
			[]string{""}, "", ""},
		{"answers to other requests", askConfirm,
			[]string{"", `,"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"},"extra":{}}}`, ""},
			`input_responses_mismatch: inputResponses do not match the inputRequests the server sent (answers to no request: "extra")`, ""},
		{"a request not answered", askConfirm,
			[]string{"", `,"requestState":"st-1","inputResponses":{}`, ""},
			`input_responses_mismatch: inputResponses do not match the inputRequests the server sent (asked and not answered: "confirm")`, ""},
		{"every request answered with the state", askConfirm,
			[]string{"", `,"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}`}, "", ""},
		{"another state carried back", askConfirm,
			[]string{"", `,"requestState":"st-forged","inputResponses":{"confirm":{"action":"accept"}}`, ""},
			"request_state_not_returned: the client did not carry back the requestState the server gave (it carries another)", ""},
		{"no state carried back", askConfirm,
			[]string{"", `,"inputResponses":{"confirm":{"action":"accept"}}`, ""},
			"request_state_not_returned: the client did not carry back the requestState the server gave (it carries none)", ""},
		{"two calls waiting: not sure which", askConfirm,
			[]string{"", "", `,"inputResponses":{"confirm":{"action":"accept"}}`}, "", ""},
		{"the round before sent again", askConfirm,
			[]string{"", `,"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}`, `,"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}`}, "", askAgain},
		{"a round after the second without its state", askConfirm,
			[]string{"", `,"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}`, `,"requestState":"st-x","inputResponses":{"confirm":{"action":"accept"}}`, ""},
			"request_state_not_returned", askAgain},
		{"answers to other requests: a call of its own", askConfirm,
			[]string{"", `,"inputResponses":{"other":{"action":"accept"}}`}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startTap(t, Config{Upstream: roundsServer(t, tc.firstRound, tc.asksAgain)})
			for i, more := range tc.requests {
				post(t, h.url, deployBody(i+1, more), session("s-1"))
			}
			post(t, h.url, deployBody(99, ""), session("s-other")) // a call elsewhere, unaffected
			h.shutdown()
			s := h.store.Snapshot()
			got := roundWarnings(s, "s-1")
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("warnings %q, want none\n%s", got, dump(s))
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Fatalf("warnings %q, want one %q\n%s", got, tc.want, dump(s))
			}
		})
	}
}

// The rounds' warnings are lines as every warning of a call is: a joined
// round's names the call and its round.
func TestRoundWarningLines(t *testing.T) {
	h := startTap(t, Config{Upstream: roundsServer(t, askConfirm), Name: "tap:orders"})
	var lines bytes.Buffer // written by w's goroutine, read once w is closed
	w := output.NewWriter(&lines, output.WriterConfig{Name: "json"})
	h.hub.Add(w)
	post(t, h.url, deployBody(1, ""), nil)
	post(t, h.url, deployBody(2, `,"requestState":"st-1","inputResponses":{"extra":{}}`), nil)
	h.shutdown()
	w.Close()
	var found bool
	for _, line := range bytes.Split(bytes.TrimSpace(lines.Bytes()), []byte("\n")) {
		ev, err := output.DecodeLine(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if ev.Code == string(model.WarnInputResponsesMismatch) {
			found = ev.Call == "tap:orders#1" && ev.Round == 2 && ev.Tool == "deploy" &&
				strings.Contains(ev.Message, `asked and not answered: "confirm"; answers to no request: "extra"`)
			if !found {
				t.Errorf("%s", line)
			}
		}
	}
	if !found {
		t.Fatalf("no input_responses_mismatch line in\n%s", lines.Bytes())
	}
}

// A client of 2025-11-25 declares its capabilities once, in its session's
// initialize: a request without them in _meta is judged by those.
func TestUndeclaredInputBySessionInitialize(t *testing.T) {
	asks := roundsServer(t, askConfirm)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte(`"initialize"`)) {
			proxied, err := http.Post(asks, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer proxied.Body.Close()
			w.Header().Set("Content-Type", "application/json")
			io.Copy(w, proxied.Body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s-"+r.Header.Get("X-Session"))
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	initialize := func(session, caps string) {
		post(t, h.url, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+
			`,"clientInfo":{"name":"c","version":"1"}}}`), map[string]string{"X-Session": session})
		h.waitFor("session "+session, func(s *model.Snapshot) bool {
			for _, ev := range s.Other {
				if ev.EventType == "mcp.initialize" && strings.Contains(string(ev.Data), `"session":"s-`+session+`"`) {
					return true
				}
			}
			return false
		})
	}
	initialize("1", `{"roots":{"listChanged":true}}`)
	initialize("2", `{"elicitation":{}}`)
	post(t, h.url, deployBody(1, ""), map[string]string{"Mcp-Session-Id": "s-1"})
	post(t, h.url, deployBody(2, ""), map[string]string{"Mcp-Session-Id": "s-2"})
	h.shutdown()
	s := h.store.Snapshot()
	if got := roundWarnings(s, "s-1"); len(got) != 1 || !strings.HasPrefix(got[0], `input_capability_undeclared: the server asks for input the client's capabilities do not declare ("confirm" needs elicitation)`) {
		t.Errorf("session s-1 (roots only): %q\n%s", got, dump(s))
	}
	if got := roundWarnings(s, "s-2"); len(got) != 0 {
		t.Errorf("session s-2 (elicitation declared): %q", got)
	}
}
