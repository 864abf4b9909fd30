package tap

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// judgmentRow is one call: its token, body and headers, and what the
// contract says of it.
type judgmentRow struct {
	rule    string
	name    any                  // params.name (a string, or not)
	meta    func(map[string]any) // edits _meta (and so the claims minted from it)
	claims  func(jwt.MapClaims)  // edits the claims alone
	noToken bool
	header  map[string]string // sent on HTTP and given to decode; stdio has none
	batch   bool
	body    func(string) string // rewrites the body as sent
	verdict string
	status  int
	codes   []string // the call's warning codes, sorted
}

// seen is what one way of judging said of the call.
type seen struct {
	verdict  string
	status   int
	rpcCode  int
	warnings []string // "code: message", sorted
}

func (s seen) codes() []string {
	var out []string
	for _, w := range s.warnings {
		code, _, _ := strings.Cut(w, ":")
		out = append(out, code)
	}
	return out
}

// TestOneJudgment: the same token, body and headers get the same verdict
// and the same warnings from the HTTP tap, the stdio tap (its token in
// _meta, rows without headers) and decode --call.
func TestOneJudgment(t *testing.T) {
	rows := []judgmentRow{
		{rule: "a call as the platform sends it", verdict: model.VerdictValid},
		{rule: "params.name that is not a string", name: 5, verdict: model.VerdictRejected, status: 400,
			codes: []string{"malformed_call"}},
		{rule: "a required _meta key absent", meta: func(m map[string]any) { delete(m, "agentarea/workspace_id") },
			claims:  func(c jwt.MapClaims) { c["workspace_id"] = "1b2e0c4d-aaaa-bbbb-cccc-123456789abc" },
			verdict: model.VerdictValid, codes: []string{"claim_missing_from_meta", "meta_key_missing"}},
		{rule: "no progressToken", meta: func(m map[string]any) { delete(m, "progressToken") },
			verdict: model.VerdictValid, codes: []string{"progress_token_missing"}},
		{rule: "no jti", claims: func(c jwt.MapClaims) { delete(c, "jti") }, verdict: model.VerdictValid, codes: []string{"claim_missing"}},
		{rule: "a jti that is not a UUID", claims: func(c jwt.MapClaims) { c["jti"] = "jti-1" }, verdict: model.VerdictValid, codes: []string{"jti_not_uuid"}},
		{rule: "the agent-facing name in params.name", name: "mcp__sheets__get_order", verdict: model.VerdictValid, codes: []string{"tool_name_qualified"}},
		{rule: "_meta that differs from its claim", claims: func(c jwt.MapClaims) { c["task_id"] = "task-other" },
			verdict: model.VerdictRejected, status: 403, codes: []string{"idempotency_key_format", "meta_claim_mismatch"}},
		{rule: "agentarea keys without a token", noToken: true, verdict: model.VerdictRejected, status: 401,
			codes: []string{"meta_without_token"}},
		{rule: "a tools/call in a batch", batch: true, verdict: model.VerdictRejected, status: 400, codes: []string{"tools_call_in_batch"}},
		{rule: "a body servers read differently", body: func(b string) string {
			return strings.Replace(b, `"name":"get_order"`, `"name":"get_order","NAME":"get_order"`, 1)
		}, verdict: model.VerdictValid, codes: []string{"ambiguous_json"}},
		{rule: "a static credential that is the context secret", header: map[string]string{"Authorization": "Bearer " + string(testSecret)},
			verdict: model.VerdictValid, codes: []string{"credential_is_secret"}},
		{rule: "an MCP session on a platform call", header: map[string]string{"Mcp-Session-Id": "s-1"},
			verdict: model.VerdictValid, codes: []string{"session_on_context_call"}},
	}
	for _, row := range rows {
		t.Run(row.rule, func(t *testing.T) {
			body, token := row.call(t, false)
			want := seenByDecode(t, body, token, row.header)
			if want.verdict != row.verdict || want.status != row.status || !slices.Equal(want.codes(), row.codes) {
				t.Fatalf("decode --call: %s %d, %v; want %s %d, %v", want.verdict, want.status, want.warnings, row.verdict, row.status, row.codes)
			}
			if got := seenByHTTPTap(t, body, token, row.header); !sameSeen(got, want) {
				t.Errorf("the HTTP tap: %+v\ndecode --call: %+v", got, want)
			}
			if row.header != nil {
				return // stdio has no headers
			}
			stdioBody, _ := row.call(t, true)
			if got := seenByStdioTap(t, stdioBody); !sameSeen(got, want) {
				t.Errorf("the stdio tap: %+v\ndecode --call: %+v", got, want)
			}
		})
	}
}

// call is the row's request body and token; over stdio the token rides in
// _meta.
func (row judgmentRow) call(t *testing.T, stdio bool) (body []byte, token string) {
	meta := contractMeta("task-j", "call-j", 1)
	if row.meta != nil {
		row.meta(meta)
	}
	name := row.name
	if name == nil {
		name = "get_order"
	}
	tool, _ := name.(string)
	if !row.noToken {
		token = mintToken(t, testSecret, tool, meta, row.claims)
	}
	if stdio && token != "" {
		meta[jsonrpc.MetaContextToken] = token
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": map[string]any{"orderId": "A-17"}, "_meta": meta}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if row.body != nil {
		s = row.body(s)
	}
	if row.batch {
		s = "[" + s + "]"
	}
	return []byte(s), token
}

func sameSeen(a, b seen) bool {
	return a.verdict == b.verdict && a.status == b.status && a.rpcCode == b.rpcCode && slices.Equal(a.warnings, b.warnings)
}

func seenByDecode(t *testing.T, body []byte, token string, header map[string]string) seen {
	if token == "" {
		// decode judges the token it is given: a call sent without one is
		// judged by the judge itself.
		return seenWithoutToken(t, body)
	}
	h := http.Header{}
	for k, v := range header {
		h.Set(k, v)
	}
	rep, err := decoder.Decode(decoder.DecodeInput{Token: token, Call: body, Header: h, InstanceID: testInstanceID, Secrets: [][]byte{testSecret}})
	if err != nil {
		t.Fatalf("decode --call: %v", err)
	}
	s := seen{verdict: rep.Verdict, status: rep.HTTPStatus, rpcCode: rep.RPCCode}
	for _, w := range rep.Warnings {
		s.warnings = append(s.warnings, w.String())
	}
	slices.Sort(s.warnings)
	return s
}

// seenWithoutToken is the judgment of a call sent with no token, by the
// judge itself (decode always has one).
func seenWithoutToken(t *testing.T, body []byte) seen {
	j := decoder.Judge{Secrets: [][]byte{testSecret}, InstanceID: testInstanceID}
	judged := j.Request(decoder.Request{Body: body, Whole: true, Header: http.Header{}, Method: http.MethodPost})
	if len(judged.Calls) != 1 {
		t.Fatalf("%d calls judged", len(judged.Calls))
	}
	c := judged.Calls[0]
	s := seen{verdict: c.Context.Verdict, status: c.Context.HTTPStatus, rpcCode: c.Context.RPCCode}
	for _, w := range c.Warnings {
		s.warnings = append(s.warnings, w.String())
	}
	slices.Sort(s.warnings)
	return s
}

func seenByHTTPTap(t *testing.T, body []byte, token string, header map[string]string) seen {
	up := idEchoUpstream(t)
	h := startTap(t, Config{Upstream: up.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
	hdr := map[string]string{}
	if token != "" {
		hdr[model.ContextHeader] = token
	}
	for k, v := range header {
		hdr[k] = v
	}
	post(t, h.url, body, hdr)
	h.shutdown()
	return seenIn(t, h.store.Snapshot().Calls)
}

func seenByStdioTap(t *testing.T, body []byte) seen {
	r := startStdio(t, context.Background(), Config{Secrets: [][]byte{testSecret}, InstanceID: testInstanceID}, stdioServer(t), "-cat")
	go io.Copy(io.Discard, r.stdout)
	io.WriteString(r.stdin, string(body)+"\n")
	r.stdin.Close()
	r.wait(t)
	store := model.NewStore(model.Options{})
	for _, e := range r.log.events() {
		store.Apply(e)
	}
	return seenIn(t, store.Snapshot().Calls)
}

// seenIn is what the one call of a tap's store says.
func seenIn(t *testing.T, calls []*model.Call) seen {
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	c := calls[0]
	a := c.LastAttempt()
	if a == nil || a.Context == nil {
		t.Fatalf("no context on the call: %+v", c)
	}
	s := seen{verdict: a.Context.Verdict, status: a.Context.HTTPStatus, rpcCode: a.Context.RPCCode}
	for _, w := range c.Warnings {
		s.warnings = append(s.warnings, fmt.Sprintf("%s: %s", w.Code, w.Message))
	}
	slices.Sort(s.warnings)
	return s
}
