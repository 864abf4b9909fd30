package tap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/output"
)

// TestSecretsRedacted: no credential, cookie, context secret or token
// signature appears in any event the tap emitted.
func TestSecretsRedacted(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	h := startTap(t, Config{Upstream: upstream.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID, CredentialHeader: "X-Instance-Key"})
	meta := contractMeta("task-r", "call-r", 1)
	token := mintToken(t, testSecret, "lookup", meta, nil)
	signature := token[strings.LastIndexByte(token, '.')+1:]
	post(t, h.url, callBody(t, 1, "lookup", map[string]any{}, meta), map[string]string{
		model.ContextHeader: token,
		"Authorization":     "Bearer sk-live-authorization-value",
		"Cookie":            "session=cookie-value-123",
		"X-API-Key":         "api-key-value-456",
		"X-Instance-Key":    "instance-key-value-789",
	})
	c := h.waitCall("lookup")
	h.shutdown()
	if c.Context == nil || !c.Context.CredentialPresent || c.Context.Verdict != model.VerdictValid {
		t.Fatalf("context %+v", c.Context)
	}
	var all bytes.Buffer
	for _, e := range allEvents(h.store.Snapshot()) {
		all.Write(output.EncodeLine(&e))
	}
	for _, secret := range []string{signature, "sk-live-authorization-value", "cookie-value-123", "api-key-value-456", "instance-key-value-789", string(testSecret)} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("an event holds the secret %q", secret)
		}
	}
	if got := c.Headers()["Authorization"]; got != "Bearer "+model.Redacted {
		t.Errorf("Authorization recorded as %q", got)
	}
	if got := c.Headers()[http.CanonicalHeaderKey(model.ContextHeader)]; !strings.HasSuffix(got, "."+model.Redacted) || !strings.HasPrefix(got, token[:strings.LastIndexByte(token, '.')]) {
		t.Errorf("context header recorded as %q", got)
	}
}

// TestRetryIsNextAttempt: the same idempotency key on a new exchange is the
// next attempt of the same call, and a replayed result is marked.
func TestRetryIsNextAttempt(t *testing.T) {
	first := true
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if first {
			first = false
			w.WriteHeader(502)
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"paid"}],"_meta":{"agentarea/replayed":true}}}`))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	meta := contractMeta("task-i", "call-i", 1)
	post(t, h.url, callBody(t, 1, "pay", map[string]any{"amount": 5}, meta), nil)
	post(t, h.url, callBody(t, 1, "pay", map[string]any{"amount": 5}, meta), nil)
	s := h.waitFor("two attempts", func(s *model.Snapshot) bool {
		return len(s.Calls) == 1 && len(s.Calls[0].Attempts) == 2 && s.Calls[0].Finished() && s.Calls[0].Attempts[1].HasResult
	})
	c := s.Calls[0]
	if c.ID != "task-i/call-i" || c.IdempotencyKey != "task-i:call-i" || c.Status != model.StatusOK || c.Flags&model.FlagReplayed == 0 || c.Flags&model.FlagRetried == 0 {
		t.Errorf("call %s key %s status %s flags %b", c.ID, c.IdempotencyKey, c.Status, c.Flags)
	}
	if a := c.Attempts[0]; a.Result.HTTPStatus != 502 || a.Exchange == c.Attempts[1].Exchange {
		t.Errorf("attempts %+v", c.Attempts)
	}
}

// TestGzipResponseParsed: a compressed answer passes compressed and is
// still read on the side.
func TestGzipResponseParsed(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"zipped!"}]}}`))
		zw.Close()
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	req, _ := http.NewRequest("POST", h.url, bytes.NewReader(callBody(t, 1, "zip", map[string]any{}, nil)))
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("the client did not get the gzip bytes: %q", raw)
	}
	if c := h.waitCall("zip"); c.LastAttempt().Result.TextChars != len("zipped!") {
		t.Errorf("result %+v", c.LastAttempt().Result)
	}
}

// TestContextHeadersObserved: MCP header mismatches and the SOAT bag.
func TestContextHeadersObserved(t *testing.T) {
	var n hits
	upstream := contractUpstream(t, &n)
	h := startTap(t, Config{Upstream: upstream.URL})
	post(t, h.url, callBody(t, 1, "lookup", map[string]any{}, map[string]any{jsonrpc.MetaProtocolVersion: decoder.MCPStateless}), map[string]string{
		"MCP-Protocol-Version":             decoder.MCPStateless,
		"Mcp-Method":                       "tools/call",
		"Mcp-Name":                         "not_lookup",
		"X-Soat-Context-Session_Id":        "sess-1",
		"X-Soat-Context-Actor_External_Id": "someone@example.com",
	})
	c := h.waitCall("lookup")
	s := h.store.Snapshot()
	if !hasWarning(s, "mcp_header_mismatch") {
		t.Errorf("no mcp_header_mismatch warning\n%s", dump(s))
	}
	if len(c.SoatContext) != 2 || c.Flags&model.FlagPII == 0 {
		t.Errorf("soat bag %v flags %b", c.SoatContext, c.Flags)
	}
	if c.Headers()["Mcp-Name"] != "not_lookup" {
		t.Errorf("headers %v", c.Headers())
	}
}

func TestNewValidates(t *testing.T) {
	sink := model.SinkFunc(func(model.Event) {})
	for _, cfg := range []Config{
		{},
		{Upstream: "ftp://x"},
		{Upstream: "http://"},
		{Upstream: "http://127.0.0.1:1", Timeout: 500 * time.Millisecond},
		{Upstream: "http://127.0.0.1:1", Timeout: 1801 * time.Second},
		{Upstream: "http://127.0.0.1:1", MaxParseBytes: 10},
	} {
		if _, err := New(cfg, sink); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	tp, err := New(Config{Upstream: "http://127.0.0.1:1/mcp"}, sink)
	if err != nil || tp.cfg.Timeout != DefaultTimeout || tp.cfg.Listen != DefaultListen || tp.cfg.MaxParseBytes != DefaultMaxParseBytes {
		t.Errorf("defaults: %+v %v", tp.cfg, err)
	}
}

func TestListenNotLoopbackWarns(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": false, "localhost:7070": false, "[::1]:1": false, "0.0.0.0:0": true, ":7070": true, "192.168.1.4:80": true} {
		if got := !model.IsLoopback(addr); got != want {
			t.Errorf("%s: warns %v, want %v", addr, got, want)
		}
	}
	h := startTap(t, Config{Upstream: "http://127.0.0.1:1", Listen: "0.0.0.0:0"})
	if !hasWarning(h.store.Snapshot(), "listen_not_loopback") {
		t.Error("no listen_not_loopback warning")
	}
}

// TestResultOverParseLimit: an answer over the parse limit flows whole; the
// call still ends, with its status and time, and a parse_skipped warning.
func TestResultOverParseLimit(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 200_000) + `"}]}}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		}
		w.Write([]byte(big))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, MaxParseBytes: 64 << 10})
	for _, path := range []string{"/sized", "/chunked"} {
		tool := "big" + strings.TrimPrefix(path, "/")
		_, _, body := post(t, h.url+path, callBody(t, 1, tool, map[string]any{}, nil), nil)
		if string(body) != big {
			t.Fatalf("%s: body changed (%d bytes)", path, len(body))
		}
		c := h.waitCall(tool)
		if r := c.LastAttempt().Result; c.Status != model.StatusOK || r.HTTPStatus != 200 || r.TextChars != 0 {
			t.Errorf("%s: status %s result %+v", path, c.Status, r)
		}
	}
	if !hasWarning(h.store.Snapshot(), "parse_skipped") {
		t.Error("no parse_skipped warning")
	}
}
