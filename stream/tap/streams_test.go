package tap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// TestProgressOnSessionStream: progress sent on the session's GET stream
// (not the call's own response) is matched to the call by its token, and a
// result arriving there (a resumed stream) ends the call, which stayed open
// when its own stream closed because it is inside an MCP session.
func TestProgressOnSessionStream(t *testing.T) {
	events := make(chan string, 8)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		if r.Method == http.MethodPost {
			return // the call's own stream ends at once, without a result
		}
		for {
			select {
			case e := <-events:
				io.WriteString(w, e)
				http.NewResponseController(w).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	get, _ := http.NewRequest("GET", h.url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", "s-1")
	getRes, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer getRes.Body.Close()
	go io.Copy(io.Discard, getRes.Body)

	post(t, h.url, callBody(t, 12, "elsewhere", map[string]any{}, map[string]any{"progressToken": "tok-12"}), map[string]string{"Mcp-Session-Id": "s-1"})
	h.waitFor("stream_ended_without_result", func(s *model.Snapshot) bool { return hasWarning(s, "stream_ended_without_result") })
	events <- fmt.Sprintf(strings.Replace(progressEvent, `"progressToken":%d`, `"progressToken":"tok-%d"`, 1), 12, 4)
	events <- "data: {\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"late but here\"}]}}\n\n"
	c := h.waitCall("elsewhere")
	if c.Progress.Sent != 1 || c.Status != model.StatusOK || c.LastAttempt().Result.TextChars != len("late but here") {
		t.Errorf("sent %d status %s result %+v", c.Progress.Sent, c.Status, c.LastAttempt().Result)
	}
}

// TestShutdownCutsOpenStreams: Shutdown returns once its context ends even
// with a stream open; the cut call is reported as cancelled by the shutdown.
func TestShutdownCutsOpenStreams(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, progressEvent, 3, 1)
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	res, err := http.Post(h.url, "application/json", bytes.NewReader(callBody(t, 3, "endless", map[string]any{}, map[string]any{"progressToken": 3})))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	bufio.NewReader(res.Body).ReadString('\n')
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.tap.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	s := h.store.Snapshot()
	var c *model.Call
	for _, x := range s.Calls {
		if x.Tool == "endless" {
			c = x
		}
	}
	if c == nil || c.Status != model.StatusCancelled || c.LastAttempt().Cancelled != "tap shut down" {
		t.Fatalf("call after shutdown:\n%s", dump(s))
	}
	if last := s.Sources[0]; last.State != model.StateEnded {
		t.Errorf("source state %s", last.State)
	}
}

// TestProgressNotIncreasing: a notification whose progress does not exceed
// the previous one is flagged (MCP says progress must increase).
func TestProgressNotIncreasing(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range []int{1, 3, 2} {
			fmt.Fprintf(w, progressEvent, 8, p)
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[]}}\n\n")
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	post(t, h.url, callBody(t, 8, "wobbly", map[string]any{}, map[string]any{"progressToken": 8}), nil)
	c := h.waitCall("wobbly")
	if c.Progress.Sent != 3 || !hasWarning(h.store.Snapshot(), "progress_not_increasing") {
		t.Errorf("sent %d, warnings %v", c.Progress.Sent, c.Warnings)
	}
}

// TestSlowSinkNeverDelaysBytes: with a sink that takes 50 ms per event, each
// SSE event still reaches the client within 100 ms of being written (the
// stream would stall if forwarding waited for the parser), and nothing the
// parser was behind on is lost.
func TestSlowSinkNeverDelaysBytes(t *testing.T) {
	const events = 10
	ack := make(chan int)
	failed := make(chan string, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 1; i <= events; i++ {
			fmt.Fprintf(w, progressEvent, 4, i)
			http.NewResponseController(w).Flush()
			select {
			case <-ack:
			case <-time.After(100 * time.Millisecond):
				failed <- fmt.Sprintf("event %d not read within 100 ms", i)
				return
			}
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[]}}\n\n")
	}))
	t.Cleanup(upstream.Close)
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	slow := model.SinkFunc(func(e model.Event) {
		time.Sleep(50 * time.Millisecond)
		hub.Emit(e)
	})
	tp, err := New(Config{Name: "slow", Listen: "127.0.0.1:0", Upstream: upstream.URL}, slow)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	res, err := http.Post("http://"+tp.Addr(), "application/json", bytes.NewReader(callBody(t, 4, "slowsink", map[string]any{}, map[string]any{"progressToken": 4})))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(res.Body)
	for n := 0; n < events; {
		line, err := br.ReadString('\n')
		if err != nil {
			select {
			case msg := <-failed:
				t.Fatal(msg)
			default:
				t.Fatalf("stream broke after %d events: %v", n, err)
			}
		}
		if strings.Contains(line, "notifications/progress") {
			n++
			ack <- n
		}
	}
	io.Copy(io.Discard, br)
	res.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tp.Shutdown(ctx)
	s := store.Snapshot()
	if len(s.Calls) != 1 || s.Calls[0].Progress.Sent != events || s.Calls[0].Status != model.StatusOK {
		t.Errorf("after shutdown:\n%s", dump(s))
	}
}

// TestStreamParsedLive: an event stream's progress is parsed as it flows,
// not once the parse grace has passed or the stream ended: the upstream
// holds its result until the tap has shown the first notification, with a
// grace of an hour.
func TestStreamParsedLive(t *testing.T) {
	shown := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, progressEvent, 6, 1)
		http.NewResponseController(w).Flush()
		select {
		case <-shown:
		case <-time.After(5 * time.Second):
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"content\":[]}}\n\n")
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, parseGrace: time.Hour})
	done := make(chan struct{})
	go func() {
		defer close(done)
		post(t, h.url, callBody(t, 6, "live", map[string]any{}, map[string]any{"progressToken": 6}), nil)
	}()
	h.waitFor("progress while the stream is open", func(s *model.Snapshot) bool {
		for _, c := range s.Calls {
			if c.Tool == "live" && c.Progress.Sent == 1 && !c.Finished() {
				return true
			}
		}
		return false
	})
	close(shown)
	<-done
	h.waitCall("live")
}
