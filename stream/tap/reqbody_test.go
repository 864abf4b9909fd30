package tap

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// heldUpload starts a POST whose body is sent up to held bytes short of
// its declared length and then held; release sends the rest.
type heldUpload struct {
	pw   *io.PipeWriter
	rest []byte
	done chan *http.Response
}

func startHeldUpload(t *testing.T, url string, body []byte, held int) *heldUpload {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", url, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	u := &heldUpload{pw: pw, rest: body[len(body)-held:], done: make(chan *http.Response, 1)}
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			u.done <- nil
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		u.done <- res
	}()
	go pw.Write(body[:len(body)-held])
	return u
}

func (u *heldUpload) release() *http.Response {
	u.pw.Write(u.rest)
	u.pw.Close()
	return <-u.done
}

// countingUpstream reads each request body to its end, counting bytes as
// they arrive, and answers with an empty JSON-RPC result.
type countingUpstream struct {
	received atomic.Int64
}

func (u *countingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		u.received.Add(int64(n))
		if err != nil {
			break
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
}

// bigCall is a tools/call whose arguments pad it to about n bytes.
func bigCall(t *testing.T, tool string, n int) []byte {
	return callBody(t, 1, tool, map[string]any{"pad": strings.Repeat("p", n)}, nil)
}

// TestRequestForwardedAsItArrives: without --enforce a request body reaches
// the upstream as the client sends it (the issue: uploads held one byte
// short were all held by the tap, the upstream had none), and its copy is
// still parsed once whole.
func TestRequestForwardedAsItArrives(t *testing.T) {
	up := &countingUpstream{}
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	body := bigCall(t, "slow_upload", 200<<10)
	u := startHeldUpload(t, h.url, body, 1)
	deadline := time.Now().Add(3 * time.Second)
	for up.received.Load() < int64(len(body)-1) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := up.received.Load(); got < int64(len(body)-1) {
		t.Fatalf("the upstream got %d of %d bytes while the client held the last one", got, len(body))
	}
	if res := u.release(); res == nil || res.StatusCode != 200 {
		t.Fatalf("response %v", res)
	}
	if c := h.waitCall("slow_upload"); c.Status != "ok" {
		t.Fatalf("call %s", c.Status)
	}
}

func liveHeapSample() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestRequestBufferBudget: uploads held one byte short hold no more than
// the tap's request buffer (--max-buffered-bytes), whatever their number;
// the copies past it are not parsed (a parse_skipped warning saying why),
// the requests all reach the upstream, and the budget is given back.
func TestRequestBufferBudget(t *testing.T) {
	const uploads, size, budget = 40, 512 << 10, 2 << 20 // 20 MiB held by the client side
	up := &countingUpstream{}
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, MaxParseBytes: 1 << 20, MaxBufferedBytes: budget})
	var bodies [][]byte
	for i := range uploads {
		bodies = append(bodies, bigCall(t, fmt.Sprintf("up_%d", i), size))
	}
	runtime.GC()
	base := liveHeapSample()
	var held []*heldUpload
	for _, b := range bodies {
		held = append(held, startHeldUpload(t, h.url, b, 1))
	}
	total := int64(uploads * (size + 80))
	deadline := time.Now().Add(5 * time.Second)
	for up.received.Load() < total-int64(uploads)*100 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	runtime.GC()
	grew := liveHeapSample() - min(base, liveHeapSample())
	used := h.tap.budget.used.Load()
	t.Logf("upstream got %d KiB; tap budget in use %d KiB; heap grew %d KiB", up.received.Load()>>10, used>>10, grew>>10)
	if used > budget {
		t.Fatalf("budget in use %d over %d", used, budget)
	}
	// What the tap holds: its budget, and per connection the buffers of
	// net/http and of this test's upstream (about 160 KiB, measured).
	if grew > budget+uploads*256<<10 {
		t.Fatalf("heap grew %d MiB holding %d uploads", grew>>20, uploads)
	}
	var wg sync.WaitGroup
	for _, u := range held {
		wg.Add(1)
		go func() { defer wg.Done(); u.release() }()
	}
	wg.Wait()
	snap := h.waitFor("every call", func(s *model.Snapshot) bool { return len(s.Calls)+countWarnings(s, "parse_skipped") >= uploads })
	skipped := 0
	for _, e := range allEvents(snap) {
		if e.Code == "parse_skipped" {
			skipped++
			if !strings.Contains(e.Message, "--max-buffered-bytes") {
				t.Fatalf("parse_skipped: %s", e.Message)
			}
		}
	}
	if skipped == 0 || len(snap.Calls) == 0 {
		t.Fatalf("%d calls parsed, %d skipped: want both (the budget holds %d of %d)", len(snap.Calls), skipped, budget/size, uploads)
	}
	h.shutdown()
	if used := h.tap.budget.used.Load(); used != 0 {
		t.Fatalf("%d bytes still counted after every exchange ended", used)
	}
	if got := up.received.Load(); got < total {
		t.Fatalf("upstream got %d of ~%d bytes", got, total)
	}
}

func countWarnings(s *model.Snapshot, code string) int {
	n := 0
	for _, e := range allEvents(s) {
		if e.Code == code {
			n++
		}
	}
	return n
}

// TestEnforceBufferBounds: with --enforce a body is read before the tap
// decides, within the budget (past it: 503, not forwarded) and the read
// deadline (past it: 408, not forwarded).
func TestEnforceBufferBounds(t *testing.T) {
	defer func(d time.Duration) { requestReadTimeout = d }(requestReadTimeout)
	requestReadTimeout = 400 * time.Millisecond
	up := &countingUpstream{}
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID,
		MaxParseBytes: 64 << 10, MaxBufferedBytes: 64 << 10})
	slow := startHeldUpload(t, h.url, bigCall(t, "slow", 60<<10), 1)
	deadline := time.Now().Add(3 * time.Second)
	for h.tap.budget.used.Load() < 50<<10 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	status, _, body := post(t, h.url, bigCall(t, "second", 30<<10), nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "--max-buffered-bytes") {
		t.Fatalf("over the budget: HTTP %d %s", status, body)
	}
	res := <-slow.done
	if res == nil || res.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("a body held past the deadline: %v", res)
	}
	if got := up.received.Load(); got != 0 {
		t.Fatalf("the upstream got %d bytes of refused requests", got)
	}
	h.shutdown()
	if used := h.tap.budget.used.Load(); used != 0 {
		t.Fatalf("%d bytes still counted", used)
	}
	if s := h.store.Snapshot(); countWarnings(s, "request_buffer_full") != 1 || countWarnings(s, "request_body_timeout") != 1 {
		t.Fatalf("warnings\n%s", dump(s))
	}
}

// TestTeeCopyDeadline: without --enforce a body that takes longer than the
// read deadline is still forwarded whole; only its copy is dropped, with a
// parse_skipped warning saying why.
func TestTeeCopyDeadline(t *testing.T) {
	defer func(d time.Duration) { requestReadTimeout = d }(requestReadTimeout)
	requestReadTimeout = 200 * time.Millisecond
	up := &countingUpstream{}
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	body := bigCall(t, "slower", 8<<10)
	u := startHeldUpload(t, h.url, body, 1)
	time.Sleep(400 * time.Millisecond)
	if res := u.release(); res == nil || res.StatusCode != 200 {
		t.Fatalf("response %v", res)
	}
	if got := up.received.Load(); got != int64(len(body)) {
		t.Fatalf("upstream got %d of %d bytes", got, len(body))
	}
	s := h.waitFor("parse_skipped", func(s *model.Snapshot) bool { return countWarnings(s, "parse_skipped") == 1 })
	for _, e := range allEvents(s) {
		if e.Code == "parse_skipped" && !strings.Contains(e.Message, "not received within 200ms") {
			t.Fatalf("parse_skipped: %s", e.Message)
		}
	}
}

// TestOpenCallsBounded: tap calls whose stream ended without a result inside
// an MCP session stay open for a resumed stream, but not in unbounded number (the issue: 20,000
// of them, with --timeout 1s, held ~380 MiB for good): past the running
// limit the oldest are ended (call_abandoned) and then evicted like
// finished calls. Scaled down: 600 calls, limits of 100.
func TestOpenCallsBounded(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200) // and the stream ends without a result
	}))
	t.Cleanup(upstream.Close)
	store := model.NewStore(model.Options{MaxRunningCalls: 100, MaxFinishedCalls: 100})
	tp, err := New(Config{Name: "open", Listen: "127.0.0.1:0", Upstream: upstream.URL, Timeout: time.Second}, output.NewHub(store))
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	const calls = 600
	for i := range calls {
		post(t, "http://"+tp.Addr(), callBody(t, i, fmt.Sprintf("open_%d", i), map[string]any{}, nil), map[string]string{"Mcp-Session-Id": "s-1"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tp.Shutdown(ctx)
	snap := store.Snapshot()
	running, abandoned := 0, 0
	for _, c := range snap.Calls {
		if c.Status == model.StatusRunning {
			running++
		}
	}
	for _, e := range allEvents(snap) {
		if e.Code == "call_abandoned" {
			abandoned++
		}
	}
	if running > 100 || len(snap.Calls) > 200 || snap.Evicted < calls-200 || abandoned == 0 {
		t.Fatalf("%d calls kept, %d running, %d evicted, %d call_abandoned", len(snap.Calls), running, snap.Evicted, abandoned)
	}
}
