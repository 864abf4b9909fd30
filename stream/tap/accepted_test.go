package tap

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// headFirst202 sends a 202's head at once and ends its (empty, chunked) body
// a moment later, as Node's http server does with writeHead(202).end() when
// the end is late to the wire. The go-sdk client closes a 202 as soon as it
// has the head, so the client is always gone before the body's end reaches
// the tap: the race real clients hit in a few exchanges a run, every time.
type headFirst202 struct{ http.ResponseWriter }

func (w headFirst202) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	if code == http.StatusAccepted {
		http.NewResponseController(w.ResponseWriter).Flush()
		time.Sleep(20 * time.Millisecond)
	}
}

func (w headFirst202) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestAcceptedIsNotADisconnect: a 202 the client received whole (a head; a
// 202 has no body) is never reported as ended by the client, however soon
// the client closes it.
func TestAcceptedIsNotADisconnect(t *testing.T) {
	const notifications = 20
	server := mcp.NewServer(&mcp.Implementation{Name: "accepting", Version: "v1.0.0"}, nil)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sdk.ServeHTTP(headFirst202{w}, r)
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "notifier", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for i := 1; i <= notifications; i++ {
		if err := session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "up", Progress: float64(i)}); err != nil {
			t.Fatalf("notification %d: %v", i, err)
		}
	}
	session.Close()
	h.shutdown()
	s := h.store.Snapshot()
	accepted, gone := 0, 0
	for _, e := range s.Other {
		if e.Kind != model.KindEvent || !strings.Contains(string(e.Data), `"http_status":202`) {
			continue
		}
		accepted++
		if strings.Contains(string(e.Data), `"ended"`) {
			gone++
		}
	}
	if accepted < notifications || gone > 0 {
		t.Errorf("%d exchanges answered 202, %d of them reported ended early\n%s", accepted, gone, dump(s))
	}
}
