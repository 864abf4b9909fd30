package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder"
	"toolscope/decoder/token"
	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
	"toolscope/stream/tap"
)

// The fixture is real traffic: a go-sdk MCP server (which, like many, does
// not verify the AgentArea token), a toolscope tap in front of it on
// loopback, and platform-exact calls posted through the tap with signed
// tokens and a static credential. The MCP endpoint under test serves the
// store the tap fills.

var (
	fixtureSecret     = []byte("s3cret-for-the-mcp-server-tests-0123456789")
	fixtureCredential = "sk-live-CREDENTIAL-0f9e8d7c6b5a4"
)

const fixtureInstance = "3f6e1a2b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"

// orderArgs is get_order's input.
type orderArgs struct {
	OrderID string `json:"orderId"`
}

func upstreamServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_order"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order " + in.OrderID + ": shipped"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail_order"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "order " + in.OrderID + " is locked"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "big_report"}, func(_ context.Context, _ *mcp.CallToolRequest, _ orderArgs) (*mcp.CallToolResult, any, error) {
		rows := make([]map[string]any, 400)
		for i := range rows {
			rows[i] = map[string]any{"row": i, "region": "EMEA", "amount": 1234.5}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("revenue line\n", 800)}},
			StructuredContent: map[string]any{"rows": rows}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

// fixture is the tap, its store and the MCP endpoint over that store.
type fixture struct {
	t      *testing.T
	store  *model.Store
	tapURL string
	mcp    *Server
	tokens []string // the context tokens sent, whole
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	tp, err := tap.New(tap.Config{Name: "orders", Listen: "127.0.0.1:0", Upstream: upstreamServer(t),
		InstanceID: fixtureInstance, Secrets: [][]byte{fixtureSecret}}, hub)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tp.Shutdown(ctx)
	})
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.Poll = 20 * time.Millisecond
	s, err := New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return &fixture{t: t, store: store, tapURL: "http://" + tp.Addr() + "/mcp", mcp: s}
}

// call posts one tools/call through the tap as the platform does: its
// 2026-07-28 headers, the static credential, a token signed for aud, and
// the _meta that mirrors the token's claims. It waits for the call's end.
func (f *fixture) call(task, toolCall, tool, aud string, args any) {
	f.t.Helper()
	meta := decoder.PlatformMeta(decoder.CallContext{TaskID: task, ToolCallID: toolCall, WorkspaceID: "ws-1"}, 7)
	token, err := token.Sign(token.Claims(aud, tool, meta, time.Now()), fixtureSecret)
	if err != nil {
		f.t.Fatal(err)
	}
	f.tokens = append(f.tokens, token)
	body := modeltest.CallBody(f.t, 7, tool, args, meta)
	req, _ := http.NewRequest(http.MethodPost, f.tapURL, bytes.NewReader(body))
	req.Header = decoder.PlatformHeaders("tools/call", tool)
	req.Header.Set("Authorization", "Bearer "+fixtureCredential)
	req.Header.Set(model.ContextHeader, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := task + "/" + toolCall
	modeltest.WaitFor(f.t, 5*time.Second, "call "+id+" ended", func() bool {
		c := f.store.Snapshot().FindCall(id)
		return c != nil && c.Finished()
	})
}

// traffic is the calls every client test reads: ok, a token for another
// instance, an isError, and a result over the platform's limits.
func (f *fixture) traffic() {
	f.call("task-1", "call_ok", "get_order", fixtureInstance, orderArgs{"A-17"})
	f.call("task-1", "call_aud", "get_order", "another-instance", orderArgs{"A-18"})
	f.call("task-1", "call_fail", "fail_order", fixtureInstance, orderArgs{"A-19"})
	f.call("task-2", "call_big", "big_report", fixtureInstance, orderArgs{"Q3"})
}

// goClient connects the go-sdk client at a protocol version ("" is its
// latest).
func (f *fixture) goClient(version string, opts *mcp.ClientOptions, hc *http.Client) *mcp.ClientSession {
	f.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.mcp.URL(), HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		f.t.Fatalf("connect at %q: %v", version, err)
	}
	f.t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured content into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func dumpJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return fmt.Sprint(string(b))
}
