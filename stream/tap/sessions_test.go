package tap

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

type holdInput struct {
	Name string `json:"name"`
}

// holdServer is a stateful go-sdk server (sessions, resumable streams) whose
// "hold" tool reports progress, closes its POST stream (the client resumes
// it with a GET and Last-Event-ID), and answers only when the test releases
// it by name, or stops when cancelled.
type holdServer struct {
	url     string
	mu      sync.Mutex
	release map[string]chan struct{}
	stop    chan struct{} // closed at the test's end: no handler outlives it
	once    sync.Once
}

func (s *holdServer) stopAll() { s.once.Do(func() { close(s.stop) }) }

func (s *holdServer) gate(name string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.release[name] == nil {
		s.release[name] = make(chan struct{})
	}
	return s.release[name]
}

func newHoldServer(t *testing.T) *holdServer {
	hs := &holdServer{release: make(map[string]chan struct{}), stop: make(chan struct{})}
	server := mcp.NewServer(&mcp.Implementation{Name: "hold-upstream", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "hold", Description: "waits for the test"},
		func(ctx context.Context, req *mcp.CallToolRequest, in holdInput) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			notify := func(n float64) {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: 2, Message: in.Name})
			}
			notify(1)
			if req.Extra != nil && req.Extra.CloseSSEStream != nil {
				req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 5 * time.Millisecond})
			}
			select {
			case <-hs.gate(in.Name):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-hs.stop:
				return nil, nil, errors.New("test over")
			}
			notify(2) // on the resumed (GET) stream
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held " + in.Name}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	t.Cleanup(srv.Close)
	hs.url = srv.URL
	return hs
}

// holdSession is one go-sdk client session through the tap with a hold call
// in flight.
type holdSession struct {
	session *mcp.ClientSession
	cancel  context.CancelFunc
	done    chan error
	res     *mcp.CallToolResult
}

func startHold(t *testing.T, h *harness, srv *holdServer, name string) *holdSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "client-" + name, Version: "v1.0.0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: 3}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	t.Cleanup(srv.stopAll) // before the session closes: cleanups run last first
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	hs := &holdSession{session: session, cancel: cancel, done: make(chan error, 1)}
	params := &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{"name": name}}
	params.SetProgressToken("tok") // the same token in every session
	go func() {
		res, err := session.CallTool(ctx, params)
		hs.res = res
		hs.done <- err
	}()
	// In flight, its POST stream closed by the server, resumed by the client.
	h.waitFor(name+" in flight, its stream closed", func(s *model.Snapshot) bool {
		c := holdCall(s, name)
		return c != nil && c.Progress.Sent == 1 && hasCallWarning(c, "stream_ended_without_result")
	})
	return hs
}

// holdCall finds the hold call of one session by its argument.
func holdCall(s *model.Snapshot, name string) *model.Call {
	for _, c := range s.Calls {
		if c.Tool == "hold" && string(c.Arguments) == `{"name":"`+name+`"}` {
			return c
		}
	}
	return nil
}

func hasCallWarning(c *model.Call, code string) bool {
	for _, w := range c.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

// TestSessionsWithCollidingIDs: two go-sdk client sessions through the tap
// number their requests alike and use the same progress token. A
// cancellation in one session ends only that session's call; the results
// and progress each server sends on a resumed GET stream land on the call
// of that session.
func TestSessionsWithCollidingIDs(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		hs := newHoldServer(t)
		h := startTap(t, Config{Upstream: hs.url})
		a := startHold(t, h, hs, "a")
		b := startHold(t, h, hs, "b")
		s := h.store.Snapshot()
		if ra, rb := holdCall(s, "a").RequestID, holdCall(s, "b").RequestID; ra != rb {
			t.Fatalf("request ids do not collide: %s and %s", ra, rb)
		}
		a.cancel() // the go-sdk client sends notifications/cancelled in session a
		if err := <-a.done; !errors.Is(err, context.Canceled) {
			t.Fatalf("a's call: %v", err)
		}
		ca := h.waitCall("hold")
		if string(ca.Arguments) != `{"name":"a"}` {
			t.Fatalf("the cancellation ended the wrong call:\n%s", dump(h.store.Snapshot()))
		}
		close(hs.gate("b"))
		if err := <-b.done; err != nil {
			t.Fatalf("b's call: %v", err)
		}
		a.session.Close() // their GET streams would hold the tap's shutdown
		b.session.Close()
		h.shutdown()
		s = h.store.Snapshot()
		ca, cb := holdCall(s, "a"), holdCall(s, "b")
		// The go-sdk client closes the stream, then sends the notification:
		// its reason is the cancellation's.
		if ca.Status != model.StatusCancelled || ca.LastAttempt().Cancelled != context.Canceled.Error() ||
			cb.Status != model.StatusOK || cb.LastAttempt().Cancelled != "" {
			t.Errorf("a %s (cancelled %q), b %s (cancelled %q)\n%s", ca.Status, ca.LastAttempt().Cancelled, cb.Status, cb.LastAttempt().Cancelled, dump(s))
		}
		if got := cb.LastAttempt().Result.TextChars; got != len("held b") || cb.Progress.Sent != 2 {
			t.Errorf("b: result %d chars, %d progress\n%s", got, cb.Progress.Sent, dump(s))
		}
		if hasWarning(s, "result_after_end") || hasWarning(s, "progress_unmatched") {
			t.Errorf("stray warnings\n%s", dump(s))
		}
	})
	t.Run("resumed", func(t *testing.T) {
		hs := newHoldServer(t)
		h := startTap(t, Config{Upstream: hs.url})
		a := startHold(t, h, hs, "a")
		b := startHold(t, h, hs, "b")
		close(hs.gate("a")) // a's progress and result come on a's resumed stream, while b's call is the newer
		if err := <-a.done; err != nil {
			t.Fatalf("a's call: %v", err)
		}
		close(hs.gate("b"))
		if err := <-b.done; err != nil {
			t.Fatalf("b's call: %v", err)
		}
		a.session.Close() // their GET streams would hold the tap's shutdown
		b.session.Close()
		h.shutdown()
		s := h.store.Snapshot()
		for _, name := range []string{"a", "b"} {
			c := holdCall(s, name)
			if c.Status != model.StatusOK || c.LastAttempt().Result.TextPreview != "held "+name || c.Progress.Sent != 2 {
				t.Errorf("%s: status %s result %q progress %d\n%s", name, c.Status, c.LastAttempt().Result.TextPreview, c.Progress.Sent, dump(s))
			}
		}
		if hasWarning(s, "result_after_end") {
			t.Errorf("a result landed on an ended call\n%s", dump(s))
		}
	})
}
