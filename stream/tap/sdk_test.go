package tap

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

type countInput struct {
	Steps int `json:"steps"`
}

type countOutput struct {
	Counted int `json:"counted"`
}

// newSDKServer is a real MCP server (the official Go SDK) with a tool that
// reports progress through the session, as an MCP server author writes it.
func newSDKServer(t *testing.T, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "sdk-upstream", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "counts, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, in countInput) (*mcp.CallToolResult, countOutput, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if tok != nil {
					err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d of %d", i, in.Steps)})
					_ = err // a JSON-response server cannot stream it: the call goes on
				}
				time.Sleep(2 * time.Millisecond)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("counted to %d", in.Steps)}}},
				countOutput{Counted: in.Steps}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts))
	t.Cleanup(srv.Close)
	return srv
}

// sdkCall connects a go-sdk client over transport, checks that tools/list
// lists wantTools tools, count among them, and calls count; it returns the
// result and the progress notifications the client received. The SDK hands
// notifications to their handler apart from the call's answer, so it waits
// (briefly) for the wantProgress it expects before reading them.
func sdkCall(t *testing.T, transport mcp.Transport, wantTools, steps, wantProgress int) (*mcp.CallToolResult, []float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var got []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Progress)
			mu.Unlock()
		},
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != wantTools || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "count" }) {
		t.Fatalf("tools/list = %v, %v", tools, err)
	}
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"steps": steps}}
	params.SetProgressToken("progress-1")
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= wantProgress {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return res, append([]float64(nil), got...)
}

// streamable is the go-sdk client transport to an HTTP endpoint, without
// retries: a test sees the first failure.
func streamable(endpoint string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
}

func TestSDKClientAndServerThroughTap(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"stateful-sse", nil},
		{"stateless-json", &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := newSDKServer(t, tc.opts)
			h := startTap(t, Config{Upstream: upstream.URL, InstanceName: "Counter Server"})
			wantSent := 0
			if tc.opts == nil { // the JSON-response server drops notifications it cannot stream
				wantSent = 5
			}

			direct, directProgress := sdkCall(t, streamable(upstream.URL), 1, 5, wantSent)
			through, tapProgress := sdkCall(t, streamable(h.url), 1, 5, wantSent)
			if fmt.Sprint(direct.Content[0].(*mcp.TextContent).Text) != through.Content[0].(*mcp.TextContent).Text {
				t.Errorf("result through the tap %v, direct %v", through.Content, direct.Content)
			}
			if fmt.Sprint(directProgress) != fmt.Sprint(tapProgress) {
				t.Errorf("progress through the tap %v, direct %v", tapProgress, directProgress)
			}

			c := h.waitCall("count")
			h.shutdown()
			s := h.store.Snapshot()
			if c.Status != model.StatusOK || c.AgentName != "mcp__counter_server__count" {
				t.Errorf("call status %s agent name %q\n%s", c.Status, c.AgentName, dump(s))
			}
			if c.Progress.Sent != wantSent || len(tapProgress) != wantSent {
				t.Errorf("tap saw %d progress notifications, client got %d, want %d", c.Progress.Sent, len(tapProgress), wantSent)
			}
			if a := c.LastAttempt(); a == nil || !a.HasResult || a.Result.TextChars != len("counted to 5") || a.Result.HTTPStatus != 200 {
				t.Errorf("result not recorded: %+v", a)
			}
			if c.Context != nil { // plain MCP: no token to miss
				t.Errorf("context = %+v, want none", c.Context)
			}
			if c.Relays || c.Progress.WouldRelay != 0 || c.AgentArea() || s.Sources[0].AgentArea { // plain MCP: nothing relays
				t.Errorf("relays %v, would relay %d, AgentArea %v, source %+v", c.Relays, c.Progress.WouldRelay, c.AgentArea(), s.Sources[0])
			}
			var sawInit, sawList bool
			for _, e := range s.Other {
				// A 2026-07-28 (stateless) session starts with server/discover.
				sawInit = sawInit || e.EventType == "mcp.initialize" || e.EventType == "mcp.server/discover"
				sawList = sawList || e.EventType == "mcp.tools/list"
			}
			if !sawInit || !sawList {
				t.Errorf("initialize seen %v, tools/list seen %v\n%s", sawInit, sawList, dump(s))
			}
		})
	}
}
