package tap

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// TestProgressAfterCancellation: a go-sdk server whose tool keeps reporting
// after the platform's notifications/cancelled (sent as AgentArea does, on a
// connection of its own, the call's stream left open). What it sends then is
// marked after_cancel and never relayed, not even the completion the 0.5 s
// rule would relay.
func TestProgressAfterCancellation(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "stubborn-upstream", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "stubborn", Description: "reports on after a cancellation"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			notify := func(ctx context.Context, n float64) {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: 3})
			}
			notify(ctx, 1)
			<-ctx.Done() // the cancellation
			late := context.WithoutCancel(ctx)
			notify(late, 2)
			notify(late, 3)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done anyway"}}}, nil, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "platform", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	callCtx, stopCall := context.WithCancel(ctx)
	defer stopCall()
	params := &mcp.CallToolParams{Name: "stubborn", Arguments: map[string]any{}}
	params.SetProgressToken("stubborn-1")
	for k, v := range contractMeta("task-1", "call-1", "stubborn-1") { // a platform's call: its progress is relayed
		params.Meta[k] = v
	}
	go session.CallTool(callCtx, params)
	c := h.waitFor("the call in flight", func(s *model.Snapshot) bool {
		return len(s.Calls) == 1 && s.Calls[0].Progress.Sent == 1
	}).Calls[0]

	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"MCP tool call timed out: no result within 5 s"}}`, c.RequestID)
	req, _ := http.NewRequest("POST", h.url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session.ID())
	req.Header.Set("Mcp-Protocol-Version", session.InitializeResult().ProtocolVersion)
	res, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %v %v", res, err)
	}
	res.Body.Close()

	// The result too: stopping the call as soon as progress 3 is seen could
	// close the stream before the server wrote it (seen once under load).
	s := h.waitFor("progress and the result after the cancellation", func(s *model.Snapshot) bool {
		return len(s.Calls) == 1 && s.Calls[0].Progress.Sent == 3 && hasWarning(s, "result_after_end")
	})
	stopCall()
	session.Close()
	h.shutdown()
	s = h.store.Snapshot()
	c = s.Calls[0]
	if c.LastAttempt().Cancelled != "MCP tool call timed out: no result within 5 s" || !hasWarning(s, "result_after_end") {
		t.Errorf("cancelled %q\n%s", c.LastAttempt().Cancelled, dump(s))
	}
	if p := c.Progress; p.AfterCancel != 2 || p.WouldRelay != 1 {
		t.Errorf("after cancel %d, would relay %d (want 2 and 1)\n%s", p.AfterCancel, p.WouldRelay, dump(s))
	}
	for _, pt := range c.Progress.History() {
		if pt.Progress > 1 && (pt.Relayed || !pt.AfterCancel) {
			t.Errorf("progress %v: relayed %v after cancel %v", pt.Progress, pt.Relayed, pt.AfterCancel)
		}
	}
}
