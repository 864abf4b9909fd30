// Package hardening_test drives toolscope's real pieces together (taps,
// feeds, the store, the screen) under load, faults and hostile input. It
// holds tests and benchmarks only.
package hardening_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/muesli/termenv"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/stream/feed"
	"toolscope/stream/tap"
	"toolscope/ui"
)

func TestMain(m *testing.M) {
	// Frames are compared as text: no colour sequences of our own.
	lipgloss.SetColorProfile(termenv.Ascii)
	code := m.Run()
	modeltest.RemoveBinaries()
	os.Exit(code)
}

// Platform settings shared by the tap and the tokens the tests sign.
var testSecret = []byte("hardening-secret-for-toolscope-0123456789")

const (
	testInstanceID = "5d1c9e0a-7b3f-4e2a-8c6d-0f1e2d3c4b5a"
	testTask       = "task-hardening"
)

// ---------------------------------------------------------------- calls

// callSpec is one tools/call a test client sends through a tap.
type callSpec struct {
	Task, ToolCallID, Tool string
	Args                   any
	ID                     int
	Token                  bool // sign an X-AgentArea-Context token
}

func (c callSpec) meta() map[string]any {
	return modeltest.ContractMeta(c.Task, c.ToolCallID, "pt-"+c.ToolCallID)
}

func (c callSpec) body() []byte {
	args := c.Args
	if args == nil {
		args = map[string]any{"n": c.ID}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "method": "tools/call",
		"params": map[string]any{"name": c.Tool, "arguments": args, "_meta": c.meta()}})
	if err != nil {
		panic(err)
	}
	return b
}

// token signs the context token the platform would send with the call.
func (c callSpec) token(t testing.TB) string {
	return modeltest.MintToken(t, testSecret, testInstanceID, c.Tool, c.meta(), func(claims jwt.MapClaims) {
		claims["jti"] = uuid.NewString() // a random UUID per token, as the platform mints it
	})
}

func (c callSpec) request(t testing.TB, ctx context.Context, url string) *http.Request {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(c.body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.Token {
		req.Header.Set("X-AgentArea-Context", c.token(t))
	}
	return req
}

// newClient is an HTTP client of its own, so its idle connections can be
// closed before counting goroutines.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024, DisableCompression: true}}
}

// ---------------------------------------------------------------- upstream

// callInfo is what the upstream read of one tools/call.
type callInfo struct {
	ID         json.RawMessage
	Tool       string
	Task       string
	ToolCallID string
	Token      json.RawMessage
	Body       []byte
}

func readCall(r *http.Request) (callInfo, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return callInfo{}, err
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Token      json.RawMessage `json:"progressToken"`
				Task       string          `json:"agentarea/task_id"`
				ToolCallID string          `json:"agentarea/tool_call_id"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return callInfo{Body: body}, err
	}
	return callInfo{ID: m.ID, Tool: m.Params.Name, Task: m.Params.Meta.Task, ToolCallID: m.Params.Meta.ToolCallID,
		Token: m.Params.Meta.Token, Body: body}, nil
}

// upstream is an MCP-ish server: every tools/call is answered with an SSE
// stream of progress notifications, then the result. It remembers the exact
// bytes it wrote for each call so clients can check they got them unchanged.
type upstream struct {
	Progress int
	Gap      time.Duration
	// Barrier holds every call until this many are in flight at once.
	Barrier int
	// Hooks (each may be nil) let a test publish the platform's feed.
	OnCall     func(c callInfo)
	OnProgress func(c callInfo, p int)
	OnResult   func(c callInfo)
	// Special answers a call itself when it returns true.
	Special func(w http.ResponseWriter, r *http.Request, c callInfo) bool

	arrived  atomic.Int64
	inFlight atomic.Int64
	peak     atomic.Int64
	release  chan struct{}
	once     sync.Once
	written  sync.Map // tool_call_id -> []byte
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := readCall(r)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	n := u.inFlight.Add(1)
	defer u.inFlight.Add(-1)
	for {
		p := u.peak.Load()
		if n <= p || u.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if u.Special != nil && u.Special(w, r, c) {
		return
	}
	if u.OnCall != nil {
		u.OnCall(c)
	}
	if u.Barrier > 0 {
		u.once.Do(func() { u.release = make(chan struct{}) })
		if u.arrived.Add(1) == int64(u.Barrier) {
			close(u.release)
		}
		select {
		case <-u.release:
		case <-time.After(20 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	var all bytes.Buffer
	write := func(s string) bool {
		all.WriteString(s)
		if _, err := io.WriteString(w, s); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for p := 1; p <= u.Progress; p++ {
		if u.Gap > 0 {
			time.Sleep(u.Gap)
		}
		if !write(progressFrame(c, p, u.Progress, fmt.Sprintf("step %d of %d", p, u.Progress))) {
			return
		}
		if u.OnProgress != nil {
			u.OnProgress(c, p)
		}
	}
	if !write(resultFrame(c, "done "+c.ToolCallID)) {
		return
	}
	u.written.Store(c.ToolCallID, all.Bytes())
	if u.OnResult != nil {
		u.OnResult(c)
	}
}

func (u *upstream) wrote(toolCallID string) []byte {
	v, _ := u.written.Load(toolCallID)
	b, _ := v.([]byte)
	return b
}

func progressFrame(c callInfo, p, total int, msg string) string {
	m, _ := json.Marshal(msg)
	return fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":%d,\"total\":%d,\"message\":%s}}\n\n",
		c.Token, p, total, m)
}

func resultFrame(c callInfo, text string) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%s}],\"structuredContent\":{\"ok\":true}}}\n\n", c.ID, t)
}

// ---------------------------------------------------------------- feed

// feedLog is one task's feed as the platform stores it: an append-only list
// of events, served over SSE from the start or after a Last-Event-ID, then
// live until the task's terminal event.
type feedLog struct {
	mu      sync.Mutex
	events  []feedEntry
	changed chan struct{}
	n       int
	// ReplayAll ignores Last-Event-ID (a server that lost its index).
	ReplayAll bool
	lastIDs   []string // Last-Event-ID of each connection ("" when absent)
	conns     atomic.Int64
}

type feedEntry struct{ id, name, data string }

func newFeedLog() *feedLog { return &feedLog{changed: make(chan struct{})} }

// publish appends one envelope and wakes the connections.
func (l *feedLog) publish(eventType string, data map[string]any) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	id := fmt.Sprintf("ev-%07d", l.n)
	if _, ok := data["task_id"]; !ok {
		data["task_id"] = testTask
	}
	b, err := json.Marshal(map[string]any{"event_type": eventType, "event_id": id,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "data": data})
	if err != nil {
		panic(err)
	}
	l.events = append(l.events, feedEntry{id, eventType, string(b)})
	close(l.changed)
	l.changed = make(chan struct{})
	return id
}

// publishRaw appends an envelope whose data object is given as raw JSON
// (hostile bytes included) under an SSE event name.
func (l *feedLog) publishRaw(sseName, eventType, dataJSON string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	id := fmt.Sprintf("ev-%07d", l.n)
	env := `{"event_type":` + eventType + `,"event_id":"` + id + `","timestamp":"` +
		time.Now().UTC().Format(time.RFC3339Nano) + `","data":` + dataJSON + `}`
	l.events = append(l.events, feedEntry{id, sseName, env})
	close(l.changed)
	l.changed = make(chan struct{})
	return id
}

// setReplayAll makes the server ignore Last-Event-ID from now on.
func (l *feedLog) setReplayAll(v bool) {
	l.mu.Lock()
	l.ReplayAll = v
	l.mu.Unlock()
}

func (l *feedLog) ids() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.events))
	for i, e := range l.events {
		out[i] = e.id
	}
	return out
}

func (l *feedLog) lastEventIDs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lastIDs...)
}

func (l *feedLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	l.mu.Lock()
	l.lastIDs = append(l.lastIDs, last)
	next := 0
	if last != "" && !l.ReplayAll {
		for i, e := range l.events {
			if e.id == last {
				next = i + 1
			}
		}
	}
	l.mu.Unlock()
	l.conns.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: connected\ndata: {\"task_id\":%q,\"message\":\"connected\"}\n\n", testTask)
	rc := http.NewResponseController(w)
	rc.Flush()
	for {
		l.mu.Lock()
		batch := l.events[next:]
		wake := l.changed
		l.mu.Unlock()
		var b strings.Builder
		for _, e := range batch {
			fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", e.name, e.data)
		}
		next += len(batch)
		if b.Len() > 0 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		}
	}
}

// feedToolCall, feedProgress and feedResult publish what the platform
// relays of a call.
func (l *feedLog) toolCall(c callInfo) {
	l.publish("tool.call", map[string]any{"task_id": c.Task, "tool_name": "mcp__hardening__" + c.Tool,
		"tool_call_id": c.ToolCallID, "iteration": 1, "arguments": map[string]any{"sanitized": true}})
}

func (l *feedLog) progress(c callInfo, p, total int) {
	l.publish("tool.progress", map[string]any{"task_id": c.Task, "tool_name": "mcp__hardening__" + c.Tool,
		"tool_call_id": c.ToolCallID, "progress": p, "total": total, "message": fmt.Sprintf("step %d of %d", p, total)})
}

func (l *feedLog) result(c callInfo) {
	l.publish("tool.result", map[string]any{"task_id": c.Task, "tool_name": "mcp__hardening__" + c.Tool,
		"tool_call_id": c.ToolCallID, "success": true, "result": "done " + c.ToolCallID, "source": "mcp"})
}

func feedConfig(base, name string) feed.Config {
	return feed.Config{URL: feed.FeedURL(base, "ws", "agent-1", testTask), Name: name, MaxBackoff: 100 * time.Millisecond}
}

// ---------------------------------------------------------------- tap

func startTap(t *testing.T, name, upstreamURL string, sink model.Sink) *tap.Tap {
	t.Helper()
	tp, err := tap.New(tap.Config{Name: name, Listen: "127.0.0.1:0", Upstream: upstreamURL,
		InstanceID: testInstanceID, InstanceName: "hardening", Secrets: [][]byte{testSecret}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	return tp
}

// shutdownTap stops the tap once the clients' idle connections are closed:
// net/http's Shutdown waits up to 5 s for a connection that never sent a
// request (one a client dialled and did not need).
func shutdownTap(t *testing.T, tp *tap.Tap, clients ...*http.Client) {
	t.Helper()
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	slow := time.AfterFunc(2*time.Second, func() {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Logf("tap shutdown still waiting after 2 s; goroutines:\n%s", buf)
	})
	defer slow.Stop()
	if err := tp.Shutdown(ctx); err != nil {
		t.Errorf("tap shutdown: %v", err)
	}
}

// ---------------------------------------------------------------- screen

// screen drives a ui model the way Bubble Tea does: it runs the frame tick
// command, feeds its message back to Update and renders View, on a
// goroutine of its own, until stopped. Keys are injected between frames.
type screen struct {
	keys chan tea.Msg
	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	frames   int
	last     string
	maxView  time.Duration
	maxGap   time.Duration
	lastTime time.Time
}

func startScreen(store *model.Store, opts ui.Options, width, height int) *screen {
	s := &screen{keys: make(chan tea.Msg, 16), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		m := ui.New(store, opts)
		m, _ = m.Update(tea.WindowSizeMsg{Width: width, Height: height})
		cmd := m.Init()
		s.render(m)
		for {
			select {
			case <-s.stop:
				return
			case k := <-s.keys:
				m, _ = m.Update(k)
				s.render(m)
				continue
			default:
			}
			msg := cmd() // the frame tick: blocks for one frame
			m, cmd = m.Update(msg)
			s.render(m)
		}
	}()
	return s
}

func (s *screen) render(m tea.Model) {
	start := time.Now()
	v := m.View()
	d := time.Since(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames++
	s.last = v
	s.maxView = max(s.maxView, d)
	if !s.lastTime.IsZero() {
		s.maxGap = max(s.maxGap, start.Sub(s.lastTime))
	}
	s.lastTime = start
}

// resetGap starts measuring the longest gap between frames anew.
func (s *screen) resetGap() {
	s.mu.Lock()
	s.maxGap, s.lastTime = 0, time.Time{}
	s.mu.Unlock()
}

func (s *screen) view() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *screen) stats() (frames int, maxView, maxGap time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames, s.maxView, s.maxGap
}

func (s *screen) frameCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames
}

// press injects a key and waits until two more frames were drawn.
func (s *screen) press(k tea.Msg) {
	n := s.frameCount()
	s.keys <- k
	for s.frameCount() < n+3 {
		time.Sleep(5 * time.Millisecond)
	}
}

// waitFrames waits for n more frames.
func (s *screen) waitFrames(n int) {
	want := s.frameCount() + n
	for s.frameCount() < want {
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *screen) close() {
	close(s.stop)
	<-s.done
}

func runeKey(r rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}} }

// ---------------------------------------------------------------- resources

// heapPeak samples HeapInuse until stopped and keeps the peak.
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func sampleHeap(every time.Duration) *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		var ms runtime.MemStats
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > h.peak.Load() {
				h.peak.Store(ms.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) finish() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// settledGoroutines is the goroutine count once what earlier tests left
// behind (closing connections, timers) has wound down.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return min(n, m)
		}
		n = m
	}
	return n
}

// checkGoroutines fails when, after a settling time, more goroutines run
// than before the test started.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	n := runtime.NumGoroutine()
	for n > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("goroutine leak: %d running after shutdown, %d before\n%s", n, before, buf)
		return
	}
	t.Logf("goroutines: %d before, %d after shutdown", before, n)
}

// findCall returns the call with this tool_call_id.
func findCall(s *model.Snapshot, toolCallID string) *model.Call {
	for _, c := range s.Calls {
		if c.ToolCallID == toolCallID {
			return c
		}
	}
	return nil
}

// allEvents lists every event the snapshot kept.
var allEvents = modeltest.AllEvents

// warningCodes counts the warnings the snapshot kept by code (a call's
// warnings are in both its Warnings and its Timeline: counted once).
func warningCodes(s *model.Snapshot) map[string]int {
	out := map[string]int{}
	for _, c := range s.Calls {
		for _, e := range c.Warnings {
			out[e.Code]++
		}
	}
	for _, e := range s.Other {
		if e.Kind == model.KindWarning {
			out[e.Code]++
		}
	}
	return out
}

// listenSame listens again on an address just closed.
func listenSame(t *testing.T, addr string) net.Listener {
	t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 100; i++ {
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("listen again on %s: %v", addr, err)
	return nil
}

// describe is a one-line summary of a call for failure messages.
func describe(c *model.Call) string {
	if c == nil {
		return "<no call>"
	}
	r := model.Result{}
	if a := c.LastAttempt(); a != nil {
		r = a.Result
	}
	return fmt.Sprintf("%s tool=%q status=%s sent=%d relayed=%d attempts=%d sources=%v error=%q",
		c.ID, c.Tool, c.Status, c.Progress.Sent, c.Progress.Relayed, len(c.Attempts), c.Sources, r.Error)
}

// runtimeMem reads the total bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}
