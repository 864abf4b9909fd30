package tap

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// closingUpstream answers every call with an event stream that carries one
// progress notification and then closes without the result.
func closingUpstream(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, progressEvent, 1, 1)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestSessionlessStreamClosedEndsTheCall: a call without Mcp-Session-Id
// whose stream closes before the result is over at once (no session, no
// resumed stream to bring it): an error that says so, long before its
// timeout, and no longer in flight.
func TestSessionlessStreamClosedEndsTheCall(t *testing.T) {
	h := startTap(t, Config{Upstream: closingUpstream(t).URL, Timeout: time.Minute})
	start := time.Now()
	post(t, h.url, callBody(t, 1, "closes", map[string]any{}, map[string]any{"progressToken": 1}), nil)
	c := h.waitCall("closes")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the call ended %v after it started", took)
	}
	r := c.LastAttempt().Result
	if c.Status != model.StatusError || r.Error != closedWithoutResult || r.HTTPStatus != 200 || c.Progress.Sent != 1 {
		t.Errorf("status %s error %q http %d sent %d", c.Status, r.Error, r.HTTPStatus, c.Progress.Sent)
	}
	if cause := c.Cause(time.Now()); cause != closedWithoutResult {
		t.Errorf("cause %q", cause)
	}
	if hasCallWarning(c, string(model.WarnStreamEndedWithoutResult)) {
		t.Error("a stream_ended_without_result warning on a call that is over")
	}
	if n := len(h.tap.calls.open()); n != 0 {
		t.Errorf("%d calls still in flight", n)
	}
}

// TestSessionStreamClosedKeepsTheCall: inside an MCP session the same close
// leaves the call running for a resumed stream, with a warning that says so.
func TestSessionStreamClosedKeepsTheCall(t *testing.T) {
	h := startTap(t, Config{Upstream: closingUpstream(t).URL, Timeout: time.Minute})
	post(t, h.url, callBody(t, 1, "resumable", map[string]any{}, map[string]any{"progressToken": 1}), map[string]string{"Mcp-Session-Id": "s-1"})
	s := h.waitFor("stream_ended_without_result", func(s *model.Snapshot) bool {
		return hasWarning(s, string(model.WarnStreamEndedWithoutResult))
	})
	if len(s.Calls) != 1 || s.Calls[0].Status != model.StatusRunning {
		t.Fatalf("want one running call:\n%s", dump(s))
	}
	if n := len(h.tap.calls.open()); n != 1 {
		t.Errorf("%d calls in flight, want the open one", n)
	}
}

// TestSessionlessClosedCallsHoldNoMemory: session-less calls whose streams
// close without a result leave nothing behind but the finished calls the
// store keeps: the heap after 2,000 of them is where it was after 1,000
// (the issue: 20,000 held 258 MiB while they stayed open).
func TestSessionlessClosedCallsHoldNoMemory(t *testing.T) {
	const keep, half = 100, 1000
	store := model.NewStore(model.Options{MaxRunningCalls: keep, MaxFinishedCalls: keep})
	tp, err := New(Config{Name: "closed", Listen: "127.0.0.1:0", Upstream: closingUpstream(t).URL, Timeout: 30 * time.Minute}, output.NewHub(store))
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdownTap(tp) })
	url := "http://" + tp.Addr()
	settled := func(n int) uint64 {
		deadline := time.Now().Add(10 * time.Second)
		for len(tp.calls.open()) > 0 || store.Snapshot().Evicted < int64(n-keep) {
			if time.Now().After(deadline) {
				t.Fatalf("%d calls in flight, %d evicted of %d", len(tp.calls.open()), store.Snapshot().Evicted, n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	var atHalf uint64
	for i := range 2 * half {
		post(t, url, callBody(t, i, fmt.Sprintf("closed_%d", i), map[string]any{}, map[string]any{"progressToken": i}), nil)
		if i+1 == half {
			atHalf = settled(half)
		}
	}
	end := settled(2 * half)
	snap := store.Snapshot()
	for _, c := range snap.Calls {
		if c.Status != model.StatusError {
			t.Fatalf("call %s is %s", c.Tool, c.Status)
		}
	}
	grew := int64(end) - int64(atHalf)
	t.Logf("heap in use after GC: %.1f MiB after %d calls, %.1f MiB after %d (%d kept, %d evicted)",
		float64(atHalf)/(1<<20), half, float64(end)/(1<<20), 2*half, len(snap.Calls), snap.Evicted)
	// Open, the 1,000 calls more held about 13 MiB (258 MiB for 20,000).
	if grew > 3<<20 {
		t.Errorf("the heap grew by %.1f MiB over %d more closed calls", float64(grew)/(1<<20), half)
	}
}

// shutdownTap stops a tap started without the harness.
func shutdownTap(tp *Tap) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tp.Shutdown(ctx)
}
