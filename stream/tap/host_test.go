package tap

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// statusWithHost sends an MCP initialize to url with the given Host header.
func statusWithHost(t *testing.T, url, host string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"conformance","version":"1"}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestHostRebindingSameVerdict: the go-sdk server refuses a DNS-rebinding
// Host on loopback (403); through the tap, by default and with RewriteHost,
// the verdict is the same, and a loopback Host still passes.
func TestHostRebindingSameVerdict(t *testing.T) {
	up := newSDKServer(t, nil)
	direct := map[string]int{}
	for _, host := range []string{"evil.example.com", "evil.example.com:80", "localhost", "127.0.0.1:9"} {
		direct[host] = statusWithHost(t, up.URL, host)
	}
	if direct["evil.example.com"] != http.StatusForbidden || direct["localhost"] != http.StatusOK {
		t.Fatalf("the go-sdk server itself: %v (want 403 for evil, 200 for localhost)", direct)
	}
	for _, rewrite := range []bool{false, true} {
		h := startTap(t, Config{Upstream: up.URL, RewriteHost: rewrite})
		for host, want := range direct {
			if got := statusWithHost(t, h.url, host); got != want {
				t.Errorf("rewrite=%v Host %q: through the tap %d, directly %d", rewrite, host, got, want)
			}
		}
		if rewrite {
			s := h.waitFor("host_rejected", func(s *model.Snapshot) bool { return hasWarning(s, "host_rejected") })
			_ = s
		}
	}
}

// TestUpstreamHostKeptHint: an upstream named by DNS gets a start-up hint
// that Host is the client's; a loopback or IP upstream does not.
func TestUpstreamHostKeptHint(t *testing.T) {
	for upstream, want := range map[string]bool{"http://mcp.example.invalid/mcp": true, "http://127.0.0.1:1/mcp": false, "http://localhost:1/mcp": false} {
		h := startTap(t, Config{Upstream: upstream})
		h.shutdown()
		if got := hasWarning(h.store.Snapshot(), "upstream_host_kept"); got != want {
			t.Errorf("%s: upstream_host_kept %v, want %v", upstream, got, want)
		}
	}
}

// TestOriginSameVerdict: a go-sdk server checking Origin against Host
// (cross-origin protection) gives the same verdict through the tap as
// directly: same-origin passes, a foreign Origin is refused.
func TestOriginSameVerdict(t *testing.T) {
	up := newSDKServer(t, &mcp.StreamableHTTPOptions{CrossOriginProtection: http.NewCrossOriginProtection()})
	h := startTap(t, Config{Upstream: up.URL})
	for _, base := range []string{up.URL, h.url} {
		self := strings.TrimPrefix(base, "http://")
		for origin, want := range map[string]int{"http://" + self: http.StatusOK, "http://evil.example.com": http.StatusForbidden} {
			if got := statusWithOrigin(t, base, origin); got != want {
				t.Errorf("%s with Origin %s: %d, want %d", base, origin, got, want)
			}
		}
	}
}

func statusWithOrigin(t *testing.T, url, origin string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"conformance","version":"1"}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
