package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// TestListenLoopbackOnly: another address needs --mcp-allow-remote and a
// token; loopback needs neither.
func TestListenLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		token  string
		want   string // "" ok, else part of the error
	}{
		{"127.0.0.1:7072", false, "", ""},
		{"localhost:7072", false, "", ""},
		{"[::1]:7072", false, "", ""},
		{"0.0.0.0:7072", false, "", "not loopback"},
		{":7072", false, "", "not loopback"},
		{"192.0.2.1:7072", true, "", TokenEnv},
		{"0.0.0.0:7072", true, "a-long-enough-token", ""},
		{"7072", false, "", "want HOST:PORT"},
	} {
		err := CheckListen(c.addr, c.remote, c.token)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s remote=%v: %v", c.addr, c.remote, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s remote=%v: %v, want an error saying %q", c.addr, c.remote, err, c.want)
		}
	}
	if _, err := New(model.NewStore(model.Options{}), Config{Listen: "0.0.0.0:0"}); err == nil {
		t.Error("New listened beyond loopback without being told")
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestBearerToken: with a token set, a request without it or with another
// one is refused (401) before MCP; with it, the client works.
func TestBearerToken(t *testing.T) {
	const token = "tok-0123456789abcdef-for-tests"
	f := newFixture(t, Config{Token: token})
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", token} {
		req, _ := http.NewRequest(http.MethodPost, f.mcp.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: %d %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	f.traffic()
	cs := f.goClient("", nil, &http.Client{Transport: bearer{token}})
	var out ListCallsOutput
	if res := callTool(t, cs, "list_calls", nil, &out); res.IsError || out.Held != 4 {
		t.Errorf("with the token: %s", text(res))
	}
}

// TestLocalhostProtection: the go-sdk's DNS rebinding protection is on (a
// loopback listener refuses a non-loopback Host), and a browser's
// cross-origin request is refused.
func TestLocalhostProtection(t *testing.T) {
	f := newFixture(t, Config{})
	post := func(set func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodPost, f.mcp.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(func(r *http.Request) {}); got != http.StatusOK {
		t.Fatalf("a plain request: %d", got)
	}
	if got := post(func(r *http.Request) { r.Host = "attacker.example:7072" }); got != http.StatusForbidden {
		t.Errorf("a rebinding Host: %d, want 403", got)
	}
	if got := post(func(r *http.Request) {
		r.Header.Set("Origin", "https://attacker.example")
		r.Header.Set("Sec-Fetch-Site", "cross-site")
	}); got != http.StatusForbidden {
		t.Errorf("a cross-origin browser request: %d, want 403", got)
	}
}

// TestSecretsNeverServed: the static credential, the context secret and
// the token's signature sent through the tap never come back from any
// tool or the resource.
func TestSecretsNeverServed(t *testing.T) {
	f := newFixture(t, Config{})
	f.traffic()
	signatures := f.signatures()
	secrets := append([]string{fixtureCredential, string(fixtureSecret)}, signatures...)
	if len(signatures) == 0 {
		t.Fatal("no token seen: the test would prove nothing")
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := f.goClient(version, nil, nil)
		var served []string
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"list_calls", nil}, {"list_calls", map[string]any{"filter": "sk-live"}}, {"list_warnings", nil}, {"sources", nil},
		} {
			served = append(served, result(t, cs, call.tool, call.args))
		}
		for _, c := range f.store.Snapshot().Calls {
			served = append(served, result(t, cs, "get_call", map[string]any{"id": c.ID}), result(t, cs, "explain_call", map[string]any{"id": c.ID}))
			rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: CallURI(c.ID)})
			if err != nil {
				t.Fatal(err)
			}
			served = append(served, rr.Contents[0].Text)
		}
		all := strings.Join(served, "\n")
		if !strings.Contains(all, "Bearer "+model.Redacted) {
			t.Errorf("%s: the credential header is not shown redacted: the test reads the wrong thing", version)
		}
		for _, secret := range secrets {
			if strings.Contains(all, secret) {
				t.Errorf("%s: a secret came back: %.12s…", version, secret)
			}
		}
	}
}

// signatures are the signatures of the tokens sent through the tap.
func (f *fixture) signatures() []string {
	var sigs []string
	for _, tok := range f.tokens {
		sigs = append(sigs, tok[strings.LastIndexByte(tok, '.')+1:])
	}
	return sigs
}

// result is everything a tool call returned, as JSON text.
func result(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	return string(b)
}
