package tap

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// stuckSink holds every event until opened: an output nobody reads (a
// paused pager, a hung disk) behind the hub.
type stuckSink struct {
	stuck atomic.Bool // from when the tap listens
	open  chan struct{}
	hub   *output.Hub

	mu      sync.Mutex
	lagging []string // parse_lagging messages (the store may not keep them all)
}

func (s *stuckSink) Emit(e model.Event) {
	if s.stuck.Load() {
		<-s.open
	}
	if e.Code == string(model.WarnParseLagging) {
		s.mu.Lock()
		s.lagging = append(s.lagging, e.Message)
		s.mu.Unlock()
	}
	s.hub.Emit(e)
}

// lost adds up the counts the parse_lagging warnings say.
func (s *stuckSink) lost(t *testing.T, pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, msg := range s.lagging {
		m := regexp.MustCompile(pattern).FindStringSubmatch(msg)
		if m == nil {
			t.Errorf("parse_lagging without a count: %s", msg)
			continue
		}
		c, _ := strconv.Atoi(m[1])
		n += c
	}
	return n
}

// TestStuckSinkNeverHoldsTraffic: with the sink stuck, calls on keep-alive
// connections and on a connection each are all answered at once; past the
// bound of exchanges under observation the rest are forwarded unobserved,
// and once the sink moves a parse_lagging warning says how many, so that
// calls shown plus calls said lost are every call made.
func TestStuckSinkNeverHoldsTraffic(t *testing.T) {
	for _, enforce := range []bool{false, true} {
		t.Run("enforce="+strconv.FormatBool(enforce), func(t *testing.T) { testStuckSink(t, enforce) })
	}
}

func testStuckSink(t *testing.T, enforce bool) {
	up := idEchoUpstream(t)
	store := model.NewStore(model.Options{})
	sink := &stuckSink{open: make(chan struct{}), hub: output.NewHub(store)}
	tp, err := New(Config{Listen: "127.0.0.1:0", Name: "stuck", Upstream: up.URL, Enforce: enforce, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID}, sink)
	if err != nil {
		t.Fatal(err)
	}
	tp.runners.limit = 16 // the bound, small: reached within a few calls
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	sink.stuck.Store(true)
	url := "http://" + tp.Addr()
	opened := sync.OnceFunc(func() { close(sink.open) })
	defer func() {
		opened()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tp.Shutdown(ctx)
	}()

	const keepAlive, perConn, oneEach = 8, 30, 100
	// Signed as the platform signs (--enforce lets them through), made
	// before the clock starts.
	type signedCall struct {
		body  []byte
		token string
	}
	calls := map[int]signedCall{}
	ids := make([]int, 0, keepAlive*perConn+oneEach)
	for i := range keepAlive * perConn {
		ids = append(ids, 1+i)
	}
	for i := range oneEach {
		ids = append(ids, 10000+i)
	}
	for _, id := range ids {
		meta := contractMeta("task-stuck", "call-"+strconv.Itoa(id), id)
		calls[id] = signedCall{body: callBody(t, id, "get_order", map[string]any{"orderId": "A-17"}, meta),
			token: mintToken(t, testSecret, "get_order", meta, nil)}
	}
	call := func(client *http.Client, id int) {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(calls[id].body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(model.ContextHeader, calls[id].token)
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("call %d: %v", id, err)
			return
		}
		var buf bytes.Buffer
		buf.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !bytes.Contains(buf.Bytes(), []byte(`"id":`+strconv.Itoa(id))) {
			t.Errorf("call %d: HTTP %d %s", id, res.StatusCode, buf.Bytes())
		}
	}
	// Before, the first call on each keep-alive connection was answered and
	// the next one never read. The clients' timeout is the bound here, loose
	// for a loaded machine under the race detector; the binary's 2 s is
	// taken out of process.
	var wg sync.WaitGroup
	for c := range keepAlive {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
		wg.Go(func() {
			for i := range perConn {
				call(client, 1+c*perConn+i)
			}
		})
	}
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range oneEach {
		wg.Go(func() { call(fresh, 10000+i) })
	}
	wg.Wait()
	opened()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	s := store.Snapshot()
	lost := sink.lost(t, `(\d+) exchanges forwarded but not observed`)
	total := keepAlive*perConn + oneEach
	if lost == 0 || len(s.Calls)+lost != total {
		t.Errorf("%d calls shown + %d said lost, want %d in all (some lost)", len(s.Calls), lost, total)
	}
}

// TestStdioStuckSinkNeverHoldsTraffic: with the sink stuck, every byte the
// server writes reaches the client; the side queue drops what the parser
// cannot take, and once the sink moves a parse_lagging warning counts the
// messages lost.
func TestStdioStuckSinkNeverHoldsTraffic(t *testing.T) {
	const lines = 300000 // ~27 MB: more than the side queue's 16 MiB
	line := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`
	store := model.NewStore(model.Options{})
	sink := &stuckSink{open: make(chan struct{}), hub: output.NewHub(store)}
	first := sync.OnceFunc(func() { sink.stuck.Store(true) }) // after "connected"
	stuckAfterFirst := model.SinkFunc(func(e model.Event) {
		sink.Emit(e)
		first()
	})
	out := &countingWriter{}
	done := make(chan error, 1)
	go func() {
		_, err := RunStdio(context.Background(), Config{Name: "stuck"},
			[]string{"sh", "-c", "yes '" + line + "' | head -n " + strconv.Itoa(lines)},
			bytes.NewReader(nil), out, io.Discard, stuckAfterFirst)
		done <- err
	}()
	want := int64(lines * (len(line) + 1))
	for deadline := time.Now().Add(20 * time.Second); out.n.Load() < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("with the sink stuck the client got %d of %d bytes", out.n.Load(), want)
		}
	}
	close(sink.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lost := sink.lost(t, `fell behind the server: (\d+) messages`)
	if lost == 0 || lost > lines {
		t.Errorf("parse_lagging says %d of %d messages lost", lost, lines)
	}
}

type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
