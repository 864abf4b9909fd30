package hardening_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
	"toolscope/stream/feed"
	"toolscope/ui"
)

// runCalls sends calls through the tap at once and returns, per call, the
// error the client saw (nil when the body matched what the upstream wrote)
// and how long it took.
func runCalls(t *testing.T, client *http.Client, tapURL string, up *upstream, specs []callSpec) ([]error, []time.Duration) {
	errs := make([]error, len(specs))
	took := make([]time.Duration, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			defer func() { took[i] = time.Since(start) }()
			res, err := client.Do(spec.request(t, context.Background(), tapURL))
			if err != nil {
				errs[i] = err
				return
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case err != nil:
				errs[i] = err
			case res.StatusCode != 200:
				errs[i] = fmt.Errorf("HTTP %d: %s", res.StatusCode, got)
			case up != nil && !bytes.Equal(got, up.wrote(spec.ToolCallID)):
				errs[i] = fmt.Errorf("body differs from what the upstream wrote (%d vs %d bytes)", len(got), len(up.wrote(spec.ToolCallID)))
			}
		}()
	}
	wg.Wait()
	return errs, took
}

func specs(prefix, tool string, n, firstID int) []callSpec {
	out := make([]callSpec, n)
	for i := range out {
		out[i] = callSpec{Task: testTask, ToolCallID: fmt.Sprintf("%s-%02d", prefix, i), Tool: tool, ID: firstID + i, Token: true}
	}
	return out
}

// TestUpstreamKilledMidStream: one call's upstream connection is cut after
// three progress notifications while ten others stream through the same
// tap; then the whole upstream dies under five calls in flight; then it is
// gone. Each cut call ends with an error naming the cause, the others are
// untouched, and the tap keeps answering.
func TestUpstreamKilledMidStream(t *testing.T) {
	before := settledGoroutines()
	store := model.NewStore(model.Options{})
	up := &upstream{Progress: 20, Gap: 20 * time.Millisecond}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		if c.Tool != "doomed" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for p := 1; p <= 3; p++ {
			io.WriteString(w, progressFrame(c, p, 20, "about to die"))
			http.NewResponseController(w).Flush()
		}
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
	upSrv := httptest.NewServer(up)
	tp := startTap(t, "faults-tap", upSrv.URL, output.NewHub(store))
	tapURL := "http://" + tp.Addr()
	client := newClient()

	// One stream cut among ten healthy ones.
	healthy := specs("healthy", "work", 10, 1)
	var herrs []error
	done := make(chan struct{})
	go func() { herrs, _ = runCalls(t, client, tapURL, up, healthy); close(done) }()
	modeltest.WaitFor(t, 10*time.Second, "ten calls in flight", func() bool { return up.inFlight.Load() >= 10 })
	derrs, _ := runCalls(t, client, tapURL, nil, []callSpec{{Task: testTask, ToolCallID: "doomed-0", Tool: "doomed", ID: 100, Token: true}})
	if derrs[0] == nil {
		t.Error("the client of the cut stream saw a clean end")
	}
	<-done
	for i, err := range herrs {
		if err != nil {
			t.Errorf("healthy call %d: %v", i, err)
		}
	}
	modeltest.WaitFor(t, 10*time.Second, "every call to end", func() bool {
		s := store.Snapshot()
		for _, sp := range append(healthy, callSpec{ToolCallID: "doomed-0"}) {
			if c := findCall(s, sp.ToolCallID); c == nil || !c.Finished() {
				return false
			}
		}
		return true
	})
	snap := store.Snapshot()
	d := findCall(snap, "doomed-0")
	if d.Status != model.StatusError || !strings.Contains(d.LastAttempt().Result.Error, "upstream stream broke") || d.Progress.Sent != 3 {
		t.Errorf("cut call: status %s error %q sent %d", d.Status, d.LastAttempt().Result.Error, d.Progress.Sent)
	}
	for _, s := range healthy {
		c := findCall(snap, s.ToolCallID)
		if c == nil || c.Status != model.StatusOK || c.Progress.Sent != 20 {
			t.Errorf("healthy call %s disturbed: %s", s.ToolCallID, describe(c))
		}
	}

	// The upstream process dies with five calls in flight.
	dying := specs("dying", "work", 5, 200)
	var yerrs []error
	done = make(chan struct{})
	go func() { yerrs, _ = runCalls(t, client, tapURL, nil, dying); close(done) }()
	modeltest.WaitFor(t, 10*time.Second, "five calls in flight", func() bool { return up.inFlight.Load() >= 5 })
	time.Sleep(60 * time.Millisecond) // a few notifications each
	upSrv.CloseClientConnections()
	<-done
	for i, err := range yerrs {
		if err == nil {
			t.Errorf("dying call %d: the client saw a clean end", i)
		}
	}
	upSrv.Close()
	modeltest.WaitFor(t, 10*time.Second, "the dying calls to end", func() bool {
		s := store.Snapshot()
		for _, sp := range dying {
			if c := findCall(s, sp.ToolCallID); c == nil || !c.Finished() {
				return false
			}
		}
		return true
	})
	snap = store.Snapshot()
	for _, sp := range dying {
		c := findCall(snap, sp.ToolCallID)
		if c.Status != model.StatusError || !strings.Contains(c.LastAttempt().Result.Error, "upstream") {
			t.Errorf("dying call %s: status %s error %q", sp.ToolCallID, c.Status, c.LastAttempt().Result.Error)
		}
	}

	// Gone: the tap answers at once with a JSON-RPC error for the call.
	gone := callSpec{Task: testTask, ToolCallID: "after-0", Tool: "work", ID: 300, Token: true}
	start := time.Now()
	res, err := client.Do(gone.request(t, context.Background(), tapURL))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), `"id":300`) || !strings.Contains(string(body), "upstream unreachable") {
		t.Errorf("after the upstream died: HTTP %d %s", res.StatusCode, body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the tap took %v to answer for a dead upstream", d)
	}
	modeltest.WaitFor(t, 5*time.Second, "the unreachable call", func() bool {
		c := findCall(store.Snapshot(), "after-0")
		return c != nil && c.Status == model.StatusError && strings.Contains(c.LastAttempt().Result.Error, "upstream unreachable")
	})

	shutdownTap(t, tp, client)
	client.CloseIdleConnections()
	checkGoroutines(t, before)
}

// serveOn serves h on ln until the returned server is closed.
func serveOn(ln net.Listener, h http.Handler) *http.Server {
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return srv
}

// TestFeedKilledAndRestarted: the feed server dies twice and comes back on
// the same port. The first time it resumes after the Last-Event-ID the feed
// sends; the second time it has lost its index and replays everything. The
// feed reconnects each time, and every event reaches the store exactly
// once, events published while it was down included.
func TestFeedKilledAndRestarted(t *testing.T) {
	before := settledGoroutines()
	log := newFeedLog()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := serveOn(ln, log)
	store := model.NewStore(model.Options{})
	col := &modeltest.Collector{Next: output.NewHub(store)}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	feedDone := make(chan error, 1)
	go func() { feedDone <- feed.Run(ctx, feedConfig("http://"+addr, "restart-feed"), col) }()

	c := callInfo{Task: testTask, ToolCallID: "call-restart", Tool: "work"}
	log.toolCall(c)
	for p := 1; p <= 5; p++ {
		log.progress(c, p, 15)
	}
	relayedN := func(n int) func() bool {
		return func() bool {
			k := findCall(store.Snapshot(), c.ToolCallID)
			return k != nil && k.Progress.Relayed == n
		}
	}
	modeltest.WaitFor(t, 10*time.Second, "5 relayed notifications", relayedN(5))
	ids := log.ids()
	lastBeforeFirst := ids[len(ids)-1]

	srv.Close() // killed
	for p := 6; p <= 10; p++ {
		log.progress(c, p, 15) // published while the server is down
	}
	srv = serveOn(listenSame(t, addr), log)
	modeltest.WaitFor(t, 10*time.Second, "10 relayed notifications after the restart", relayedN(10))
	ids = log.ids()
	lastBeforeSecond := ids[len(ids)-1]

	srv.Close()
	log.setReplayAll(true) // the restarted server lost its index
	for p := 11; p <= 15; p++ {
		log.progress(c, p, 15)
	}
	log.result(c)
	log.publish("task.completed", map[string]any{"message": "done"})
	srv = serveOn(listenSame(t, addr), log)
	select {
	case err := <-feedDone:
		if err != nil {
			t.Errorf("feed: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the feed did not end after the restarts")
	}
	srv.Close()

	if got, want := log.lastEventIDs(), []string{"", lastBeforeFirst, lastBeforeSecond}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Last-Event-ID per connection %q, want %q", got, want)
	}
	seen := map[string]int{}
	var reconnecting int
	for _, e := range col.Events() {
		if e.EventID != "" {
			seen[e.EventID]++
		}
		if e.Kind == model.KindSourceStatus && e.State == model.StateReconnecting {
			reconnecting++
		}
	}
	for _, id := range log.ids() {
		if seen[id] != 1 {
			t.Errorf("event %s emitted %d times, want once", id, seen[id])
		}
	}
	if len(seen) != len(log.ids()) {
		t.Errorf("%d distinct events emitted, the server has %d", len(seen), len(log.ids()))
	}
	if reconnecting < 2 {
		t.Errorf("%d reconnecting states shown, want at least 2", reconnecting)
	}
	snap := store.Snapshot()
	k := findCall(snap, c.ToolCallID)
	if k == nil || k.Progress.Relayed != 15 || k.Status != model.StatusOK || snap.Duplicates != 0 {
		t.Errorf("call after restarts: %s duplicates %d", describe(k), snap.Duplicates)
	}
	checkGoroutines(t, before)
}

// rawRequest is an HTTP/1.1 request as bytes.
func rawRequest(host string, headers []string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", host, len(body))
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// TestSlowReaderDoesNotStall: a client reads its stream one byte a second.
// Its own connection backs up to the upstream; twenty other calls through
// the same tap complete promptly meanwhile, the store and the screen keep
// up, and when the slow client leaves its call shows cancelled.
func TestSlowReaderDoesNotStall(t *testing.T) {
	before := settledGoroutines()
	store := model.NewStore(model.Options{})
	var slowWritten atomic.Int64
	slowGone := make(chan struct{})
	up := &upstream{Progress: 10}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		if c.Tool != "slow" {
			return false
		}
		defer close(slowGone)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		pad := strings.Repeat("x", 16<<10)
		for p := 1; ; p++ {
			n, err := io.WriteString(w, progressFrame(c, p, 0, pad))
			slowWritten.Add(int64(n))
			if err != nil || http.NewResponseController(w).Flush() != nil {
				return true
			}
		}
	}
	upSrv := httptest.NewServer(up)
	tp := startTap(t, "slow-tap", upSrv.URL, output.NewHub(store))
	scr := startScreen(store, ui.Options{Title: "slow"}, 120, 40)

	conn, err := net.Dial("tcp", tp.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).SetReadBuffer(4096)
	slow := callSpec{Task: testTask, ToolCallID: "slow-0", Tool: "slow", ID: 1, Token: true}
	if _, err := conn.Write(rawRequest(tp.Addr(), []string{"X-AgentArea-Context: " + slow.token(t)}, slow.body())); err != nil {
		t.Fatal(err)
	}
	var slowRead atomic.Int64
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		one := make([]byte, 1)
		for {
			if _, err := conn.Read(one); err != nil {
				return
			}
			slowRead.Add(1)
			time.Sleep(time.Second)
		}
	}()
	// Wait until the slow stream has backed up: the upstream can write no more.
	var last int64
	modeltest.WaitFor(t, 15*time.Second, "the slow stream to back up", func() bool {
		time.Sleep(150 * time.Millisecond)
		n := slowWritten.Load()
		stalled := n > 1<<20 && n == last
		last = n
		return stalled
	})

	scr.resetGap()
	client := newClient()
	others := specs("other", "work", 20, 10)
	errs, took := runCalls(t, client, "http://"+tp.Addr(), up, others)
	var slowest time.Duration
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d beside the slow reader: %v", i, err)
		}
		slowest = max(slowest, took[i])
	}
	if slowest > 5*time.Second {
		t.Errorf("the slowest call beside the slow reader took %v", slowest)
	}
	modeltest.WaitFor(t, 5*time.Second, "the other calls in the store", func() bool {
		s := store.Snapshot()
		for _, sp := range others {
			if c := findCall(s, sp.ToolCallID); c == nil || c.Status != model.StatusOK || c.Progress.Sent != 10 {
				return false
			}
		}
		return true
	})
	snapStart := time.Now()
	snap := store.Snapshot()
	snapTook := time.Since(snapStart)
	sc := findCall(snap, "slow-0")
	if sc == nil || sc.Status != model.StatusRunning || sc.Progress.Sent == 0 {
		t.Errorf("the slow call is not shown mid-stream: %s", describe(sc))
	}
	scr.waitFrames(3)
	frames, _, gap := scr.stats()
	t.Logf("slow reader read %d bytes while the upstream wrote %.1f MiB into its stream; 20 other calls took at most %v; snapshot %v; longest gap between frames %v (%d frames)",
		slowRead.Load(), float64(slowWritten.Load())/(1<<20), slowest.Round(time.Millisecond), snapTook, gap.Round(time.Millisecond), frames)
	if gap > 2*time.Second {
		t.Errorf("the screen stalled for %v", gap)
	}
	if n := slowRead.Load(); n > 10 {
		t.Errorf("the slow reader read %d bytes: not slow", n)
	}

	conn.Close()
	<-readerDone
	select {
	case <-slowGone:
	case <-time.After(10 * time.Second):
		t.Error("the upstream still writes the slow stream after its client left")
	}
	modeltest.WaitFor(t, 10*time.Second, "the slow call to show cancelled", func() bool {
		c := findCall(store.Snapshot(), "slow-0")
		return c != nil && c.Status == model.StatusCancelled
	})
	scr.close()
	shutdownTap(t, tp, client)
	upSrv.Close()
	client.CloseIdleConnections()
	checkGoroutines(t, before)
}

var (
	callsRe   = regexp.MustCompile(`(?:^|\D)(\d[\d,]*) calls`)
	waitingRe = regexp.MustCompile(`(\d[\d,]*) waiting`)
)

func number(re *regexp.Regexp, s string) int {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n
}

// TestPausedScreenDuringBurst: with the screen paused (`p`), a burst of
// calls goes through the tap. Ingest goes on (the store has every event),
// the paused frame counts what waits, and after `p` again the view shows
// the burst.
func TestPausedScreenDuringBurst(t *testing.T) {
	store := model.NewStore(model.Options{})
	up := &upstream{Progress: 20}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tp := startTap(t, "pause-tap", upSrv.URL, output.NewHub(store))
	scr := startScreen(store, ui.Options{Title: "p-test"}, 140, 60)
	defer scr.close()
	scr.waitFrames(2)

	phase := time.Now()
	scr.press(runeKey('p'))
	t.Logf("pause pressed in %v", time.Since(phase))
	if v := scr.view(); !strings.Contains(v, "PAUSED") {
		t.Fatalf("no PAUSED after p:\n%s", v)
	}
	client := newClient()
	defer client.CloseIdleConnections()
	burst := specs("blast", "blast", 50, 1)
	errs, _ := runCalls(t, client, "http://"+tp.Addr(), up, burst)
	for i, err := range errs {
		if err != nil {
			t.Errorf("burst call %d: %v", i, err)
		}
	}
	modeltest.WaitFor(t, 10*time.Second, "the burst in the store", func() bool {
		s := store.Snapshot()
		n := 0
		for _, c := range s.Calls {
			if c.Status == model.StatusOK && c.Progress.Sent == 20 {
				n++
			}
		}
		return n == 50
	})
	scr.waitFrames(3)
	paused := scr.view()
	events := store.Snapshot().Events
	if !strings.Contains(paused, "PAUSED") || number(callsRe, paused) != 0 || strings.Contains(paused, "blast") {
		t.Errorf("the paused frame moved:\n%s", paused)
	}
	if w := number(waitingRe, paused); w <= 0 || int64(w) > events {
		t.Errorf("the paused frame says %d waiting; the store applied %d events:\n%s", w, events, paused)
	}

	scr.press(runeKey('p'))
	scr.waitFrames(2)
	resumed := scr.view()
	if strings.Contains(resumed, "PAUSED") || number(callsRe, resumed) != 50 || !strings.Contains(resumed, "blast") {
		t.Errorf("after unpausing the frame does not show the burst:\n%s", resumed)
	}
	start := time.Now()
	shutdownTap(t, tp, client)
	t.Logf("tap shutdown took %v", time.Since(start))
}

// TestRecordDiskFull: --record onto a full disk. The writer reports one
// clear error, the store gets one write_failed warning, other outputs and
// monitoring go on, and nothing is lost from the store.
func TestRecordDiskFull(t *testing.T) {
	f, err := openFull()
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	hub.Add(output.NewWriter(f, output.WriterConfig{Name: "--record /dev/full", Closer: f}))
	var stdout bytes.Buffer
	hub.Add(output.NewWriter(&stdout, output.WriterConfig{Name: "stdout"}))
	var reported []error
	hub.OnWriteError = func(err error) { reported = append(reported, err) }

	const n = 3000
	at := time.Now().UTC()
	base := model.Event{Source: model.SourceTap, SourceName: "disk-tap", TaskID: testTask, ToolCallID: "call-disk", Tool: "work", Exchange: "1"}
	ev := base
	ev.Time, ev.Kind = at, model.KindToolCall
	hub.Emit(ev)
	total := 100.0
	for i := 1; i <= n; i++ {
		ev = base
		ev.Time, ev.Kind, ev.Progress, ev.Total, ev.Message = at.Add(time.Duration(i)*time.Millisecond), model.KindToolProgress, float64(i), &total, "a message long enough to fill a 64 KiB buffer quickly"
		hub.Emit(ev)
	}
	ev = base
	ev.Time, ev.Kind = at.Add(time.Hour), model.KindToolResult
	hub.Emit(ev)
	hub.Flush() // the writers write on their own goroutines

	if len(reported) != 1 {
		t.Fatalf("%d write errors reported, want exactly 1: %v", len(reported), reported)
	}
	msg := reported[0].Error()
	if !strings.Contains(msg, "--record /dev/full") || !strings.Contains(msg, "no space left on device") {
		t.Errorf("unclear error: %q", msg)
	}
	snap := store.Snapshot()
	if codes := warningCodes(snap); codes["write_failed"] != 1 {
		t.Errorf("write_failed warnings: %v", codes)
	}
	c := findCall(snap, "call-disk")
	if c == nil || c.Progress.Sent != n || c.Status != model.StatusOK {
		t.Errorf("monitoring did not go on: %s", describe(c))
	}
	if lines := bytes.Count(stdout.Bytes(), []byte("\n")); lines != n+2 {
		t.Errorf("the other output has %d lines, want %d", lines, n+2)
	}
	if err := hub.Close(); err == nil || !errors.Is(err, reported[0]) && err.Error() != msg {
		t.Errorf("Close: %v", err)
	}
}

// TestTapShutdownWithUnusedConnection: a client that opened a connection
// and sent nothing yet (an HTTP client's spare connection) must not hold a
// tap's shutdown: `toolscope tap` should stop at once on SIGINT.
func TestTapShutdownWithUnusedConnection(t *testing.T) {
	upSrv := httptest.NewServer(&upstream{})
	defer upSrv.Close()
	tp := startTap(t, "idle-tap", upSrv.URL, output.NewHub(model.NewStore(model.Options{})))
	conn, err := net.Dial("tcp", tp.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	time.Sleep(50 * time.Millisecond)
	// cli gives Shutdown 5 s; 1.5 s is enough to tell.
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := tp.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	took := time.Since(start)
	t.Logf("tap shutdown with one unused connection open: %v", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("Shutdown took %v", took)
	}
}
