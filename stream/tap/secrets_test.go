package tap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// recordedLines starts a tap whose every event is also written as the JSON
// lines a recording holds; lines() returns them.
func recordedTap(t *testing.T, cfg Config) (*harness, func() string) {
	t.Helper()
	var mu sync.Mutex
	var buf bytes.Buffer
	w := output.NewWriter(lockedWriter{&mu, &buf}, output.WriterConfig{Name: "test"})
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	store := model.NewStore(model.Options{})
	tp, err := New(cfg, output.NewHub(store, w))
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, tap: tp, store: store, url: "http://" + tp.Addr()}
	t.Cleanup(h.shutdown)
	return h, func() string {
		h.shutdown()
		w.Flush() // the writer writes on its own goroutine
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestUpstreamQueryCredentialsHidden: credentials in the --upstream query
// never reach the JSON lines, neither in the status nor in a transport error.
func TestUpstreamQueryCredentialsHidden(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens: the call fails with a transport error naming the URL
	h, lines := recordedTap(t, Config{Upstream: "http://" + dead + "/mcp?api_key=SECRET-ONE&token=SECRET-TWO&x=1"})
	post(t, h.url, callBody(t, 1, "get_order", map[string]any{}, nil), nil)
	h.waitCall("get_order")
	out := lines()
	if strings.Contains(out, "SECRET-") {
		t.Fatalf("an upstream query credential reached the JSON lines:\n%s", out)
	}
	if !strings.Contains(out, "upstream unreachable") || !strings.Contains(out, "api_key=") {
		t.Fatalf("want the status and the unreachable error, with the key names kept:\n%s", out)
	}
}

// TestCredentialLikeHeadersRedacted: headers that look like credentials are
// redacted in the recorded tool.call without --credential-header.
func TestCredentialLikeHeadersRedacted(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	}))
	defer up.Close()
	h, lines := recordedTap(t, Config{Upstream: up.URL})
	hdr := map[string]string{"Api-Key": "SECRET-A", "X-Auth-Token": "SECRET-B", "X-Access-Token": "SECRET-C",
		"Private-Token": "SECRET-D", "Mcp-Session-Id": "session-shown", "Idempotency-Key": "idem-shown"}
	post(t, h.url, callBody(t, 1, "get_order", map[string]any{}, nil), hdr)
	h.waitCall("get_order")
	out := lines()
	if strings.Contains(out, "SECRET-") {
		t.Fatalf("a credential-like header value was recorded:\n%s", out)
	}
	for _, keep := range []string{"session-shown", "idem-shown"} {
		if !strings.Contains(out, keep) {
			t.Errorf("%s should still be shown:\n%s", keep, out)
		}
	}
}

// TestConnectionStripsContextToken: a client that names X-AgentArea-Context
// in Connection has it removed before the server; the tap judges the call as
// the server receives it (no token), not as valid.
func TestConnectionStripsContextToken(t *testing.T) {
	var mu sync.Mutex
	var gotToken []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotToken = append(gotToken, r.Header.Get("X-AgentArea-Context"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	}))
	defer up.Close()
	h := startTap(t, Config{Upstream: up.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
	meta := contractMeta("task-c", "call-c", 1)
	tok := mintToken(t, testSecret, "get_order", meta, nil)
	post(t, h.url, callBody(t, 1, "get_order", map[string]any{}, meta),
		map[string]string{"X-AgentArea-Context": tok, "Connection": "X-AgentArea-Context, x-soat-context-tenantid",
			"X-Soat-Context-tenantId": "acme", "X-Soat-Context-plan": "pro"})
	c := h.waitCall("get_order")
	if fmt.Sprint(c.SoatContext) != "map[Plan:pro]" { // Go's client sends the name canonical
		t.Errorf("SOAT bag %v: the stripped tenantId never reached the server", c.SoatContext)
	}
	mu.Lock()
	received := gotToken
	mu.Unlock()
	if len(received) != 1 || received[0] != "" {
		t.Fatalf("the server received tokens %q; the proxy should have stripped it", received)
	}
	if c.Context == nil || c.Context.Verdict == model.VerdictValid || c.Flags&model.FlagRejected == 0 {
		t.Fatalf("context = %+v flags=%b: the server never got the token, so it is not valid", c.Context, c.Flags)
	}
	h.waitFor("context_header_stripped", func(s *model.Snapshot) bool { return hasWarning(s, "context_header_stripped") })
}

// TestPathCannotLeavePrefix: dot segments are resolved against the tap's
// root, so no request reaches a path outside the upstream's.
func TestPathCannotLeavePrefix(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.RequestURI)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer up.Close()
	h := startTap(t, Config{Upstream: up.URL + "/mcp"})
	cases := map[string]string{
		"/../../admin":     "/mcp/admin",
		"/..%2f..%2fadmin": "/mcp/admin",
		"/%2e%2e/admin/":   "/mcp/admin/",
		"/x/./y":           "/mcp/x/y",
		"/..":              "/mcp",
		"/plain%2Fslash":   "/mcp/plain%2Fslash",
	}
	for in, want := range cases {
		conn, err := net.Dial("tcp", h.tap.Addr())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", in)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		res.Body.Close()
		conn.Close()
		mu.Lock()
		got := paths[len(paths)-1]
		mu.Unlock()
		if got != want {
			t.Errorf("%s reached the upstream as %s, want %s", in, got, want)
		}
	}
}
