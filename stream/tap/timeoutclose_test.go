package tap

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// TestStreamClosedAtTimeout: a 2026-07-28 client cancels by closing the
// call's stream, here at the call's timeout (1 s), with no
// notifications/cancelled: the tap says the call timed out, not that the
// client disconnected. A close well before the timeout stays a disconnect.
func TestStreamClosedAtTimeout(t *testing.T) {
	stop := make(chan struct{}) // a stateless go-sdk server does not cancel a tool when its stream closes
	server := mcp.NewServer(&mcp.Implementation{Name: "slow-upstream", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "never answers in time"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1})
			select {
			case <-ctx.Done():
			case <-stop:
			}
			return nil, nil, errors.New("stopped")
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(upstream.Close)
	t.Cleanup(func() { close(stop) })
	h := startTap(t, Config{Upstream: upstream.URL, Timeout: time.Second})

	call := func(id int, after time.Duration) {
		meta := map[string]any{"progressToken": id, jsonrpc.MetaProtocolVersion: decoder.MCPStateless,
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "platform", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
		ctx, cancel := context.WithTimeout(context.Background(), after)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", h.url, bytes.NewReader(callBody(t, id, "slow", map[string]any{}, meta)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(decoder.HeaderProtocolVersion, decoder.MCPStateless)
		req.Header.Set(decoder.HeaderMethod, "tools/call")
		req.Header.Set(decoder.HeaderName, "slow")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("call %d: %v", id, err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(res.Body)
			t.Fatalf("call %d: HTTP %d %s", id, res.StatusCode, b)
		}
		if _, err := io.Copy(io.Discard, res.Body); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: the stream ended with %v, not at the client's deadline", id, err)
		}
	}
	call(1, 150*time.Millisecond)
	call(2, time.Second)
	s := h.waitFor("both calls ended", func(s *model.Snapshot) bool {
		return len(s.Calls) == 2 && s.Calls[0].Finished() && s.Calls[1].Finished()
	})
	want := map[string]string{"1": "client disconnected", "2": "timed out after 1 s"}
	for _, c := range s.Calls {
		if c.Status != model.StatusCancelled || c.LastAttempt().Cancelled != want[c.RequestID] {
			t.Errorf("call %s: %s %q, want cancelled %q\n%s", c.RequestID, c.Status, c.LastAttempt().Cancelled, want[c.RequestID], dump(s))
		}
	}
	if len(s.Calls) != 2 {
		t.Errorf("%d calls\n%s", len(s.Calls), dump(s))
	}
}
