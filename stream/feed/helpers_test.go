package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// feedServer is a real SSE server on loopback whose answers a test scripts.
// serve is called for each connection with its 1-based number.
type feedServer struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []*http.Request
	serve func(w *sseWriter, r *http.Request, conn int)
}

func newFeedServer(t *testing.T, serve func(w *sseWriter, r *http.Request, conn int)) *feedServer {
	t.Helper()
	s := &feedServer{serve: serve}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		n := len(s.reqs)
		s.mu.Unlock()
		sw := &sseWriter{w: w, f: w.(http.Flusher)}
		s.serve(sw, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *feedServer) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

// url is the feed URL of a task on this server.
func (s *feedServer) url(task string) string { return FeedURL(s.URL, "ws", "agent-1", task) }

// sseWriter writes raw SSE frames, with LF, CRLF or CR line ends.
type sseWriter struct {
	w    http.ResponseWriter
	f    http.Flusher
	eol  string // line end ("" is LF)
	head bool
}

func (s *sseWriter) header() {
	if !s.head {
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.head = true
	}
}

// raw writes text as is (line ends converted to eol) and flushes.
func (s *sseWriter) raw(text string) {
	s.header()
	if s.eol != "" {
		text = strings.ReplaceAll(text, "\n", s.eol)
	}
	fmt.Fprint(s.w, text)
	s.f.Flush()
}

// frame writes one whole frame: `event: name`, `data: data`, a blank line.
func (s *sseWriter) frame(name, data string) { s.raw(sseFrame(name, data)) }

func sseFrame(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// abort breaks the connection without ending the response properly.
func (s *sseWriter) abort() { panic(http.ErrAbortHandler) }

// env builds a feed envelope.
func env(eventType, eventID string, data map[string]any) string {
	m := map[string]any{"event_type": eventType, "data": data}
	if eventID != "" {
		m["event_id"] = eventID
		m["timestamp"] = "2026-07-29T10:00:00Z"
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// feedEvent is one scripted event of a task.
type feedEvent struct {
	name, id, data string
}

func (e feedEvent) frame() string { return sseFrame(e.name, e.data) }

// scriptTask makes a task's events: calls calls, each a tool.call, progress
// notifications and a tool.result, then task.completed. Ids are "<task>-<n>".
func scriptTask(task string, calls, progress int) []feedEvent {
	var evs []feedEvent
	n := 0
	add := func(typ string, data map[string]any) {
		n++
		id := fmt.Sprintf("%s-%04d", task, n)
		data["task_id"] = task
		evs = append(evs, feedEvent{typ, id, env(typ, id, data)})
	}
	for c := 1; c <= calls; c++ {
		call := fmt.Sprintf("call_%d", c)
		add("tool.call", map[string]any{"tool_name": "mcp__srv__work", "tool_call_id": call, "arguments": map[string]any{"n": c}})
		for p := 1; p <= progress; p++ {
			add("tool.progress", map[string]any{"tool_name": "mcp__srv__work", "tool_call_id": call, "progress": p, "total": progress, "message": "step"})
		}
		add("tool.result", map[string]any{"tool_name": "mcp__srv__work", "tool_call_id": call, "success": true, "result": "ok"})
	}
	add("task.completed", map[string]any{"message": "done"})
	return evs
}

// collector is a sink that keeps every event in order and applies it to a
// store through a hub, as cli wires it.
type collector struct {
	*modeltest.Collector
	store *model.Store
}

func newCollector() *collector {
	s := model.NewStore(model.Options{})
	return &collector{Collector: &modeltest.Collector{Next: output.NewHub(s)}, store: s}
}

func (c *collector) kind(k model.Kind) []model.Event {
	var out []model.Event
	for _, e := range c.Events() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func (c *collector) states() []string {
	var out []string
	for _, e := range c.kind(model.KindSourceStatus) {
		out = append(out, e.State)
	}
	return out
}

// idsWithEventID lists the event ids emitted, in order.
func (c *collector) eventIDs() []string {
	var out []string
	for _, e := range c.Events() {
		if e.EventID != "" {
			out = append(out, e.EventID)
		}
	}
	return out
}

// testConfig is a Config for a loopback test: short backoff.
func testConfig(url string) Config {
	return Config{URL: url, APIKey: "sk-test-secret", MaxBackoff: 20 * time.Millisecond}
}

// runFeed runs a feed with a deadline and returns its error.
func runFeed(t *testing.T, cfg Config, sink model.Sink) error {
	t.Helper()
	return runFeedWithin(t, 20*time.Second, cfg, sink)
}

// runFeedWithin is runFeed with a deadline of its own (a 16 MiB event
// takes about 18 s under the race detector alone, more on a loaded
// machine).
func runFeedWithin(t *testing.T, deadline time.Duration, cfg Config, sink model.Sink) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	err := Run(ctx, cfg, sink)
	if ctx.Err() != nil {
		t.Fatalf("feed did not end within the deadline (err %v)", err)
	}
	return err
}
