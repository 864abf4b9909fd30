package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

func progressEvent(i int) model.Event {
	total := 100.0
	return model.Event{Time: at(i), Source: model.SourceTap, SourceName: "tap", Kind: model.KindToolProgress,
		TaskID: "T1", ToolCallID: fmt.Sprintf("call_%d", i%7), Tool: "work", Progress: float64(i), Total: &total}
}

// TestRecordingReachesTheFileWhileRunning: a recording holds its events
// within about 150 ms of their emission, while the writer is still open
// (issue 14: with the TUI a --record was written only at exit, so a crash
// lost it all).
func TestRecordingReachesTheFileWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	hub := NewHub(model.NewStore(model.Options{}), NewWriter(f, WriterConfig{Name: "--record " + path, Closer: f}))
	defer hub.Close()
	check := func(want int) {
		t.Helper()
		deadline := time.Now().Add(150 * time.Millisecond)
		for {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Count(b, []byte("\n"))
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d lines in the recording 150 ms after %d events were emitted", got, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	hub.Emit(progressEvent(1))
	check(1)
	hub.Emit(progressEvent(2))
	hub.Emit(progressEvent(3))
	check(3)
}

// gatedWriter counts writes; the first one waits for open, so events pile
// up in the queue behind it.
type gatedWriter struct {
	open   chan struct{}
	mu     sync.Mutex
	writes int
	lines  int
	copy   *bytes.Buffer // what was written, when set
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	g.lines += bytes.Count(p, []byte("\n"))
	if g.copy != nil {
		g.copy.Write(p)
	}
	return len(p), nil
}

// TestWriterBatchesAndFlushesByTime: events that pile up while the stream
// is slow go out in one batch when the writer keeps up (one write for all,
// not one each), and with events always queued it still flushes whenever
// MaxDelay has passed (here 1 ns: after every event).
func TestWriterBatchesAndFlushesByTime(t *testing.T) {
	const queued = 300
	for _, tc := range []struct {
		maxDelay time.Duration
		writes   int // at most
	}{{time.Hour, 2}, {time.Nanosecond, 1 + queued}} {
		g := &gatedWriter{open: make(chan struct{})}
		w := NewWriter(g, WriterConfig{Name: "gated", MaxDelay: tc.maxDelay, QueueLen: 2 * queued})
		w.Emit(progressEvent(0)) // written and flushed: the flush waits at the gate
		for i := 1; i <= queued; i++ {
			w.Emit(progressEvent(i))
		}
		close(g.open)
		w.Flush()
		g.mu.Lock()
		writes, lines := g.writes, g.lines
		g.mu.Unlock()
		if lines != 1+queued || writes > tc.writes || tc.maxDelay < time.Millisecond && writes < queued {
			t.Errorf("MaxDelay %v: %d lines in %d writes, want %d lines in %d", tc.maxDelay, lines, writes, 1+queued, tc.writes)
		}
		w.Close()
	}
}

// TestConcurrentEmittersNeverWait: many goroutines emitting through a
// small queue never wait on it: what does not fit is dropped whole and
// counted, and each output says, where it lost them, how many lines it
// lost. Every event is a whole line or counted, on stdout-like output and a
// recording alike.
func TestConcurrentEmittersNeverWait(t *testing.T) {
	var text, rec bytes.Buffer
	hub := NewHub(model.NewStore(model.Options{}),
		NewWriter(&text, WriterConfig{Name: "stdout", Format: FormatText, QueueLen: 4}),
		NewWriter(&rec, WriterConfig{Name: "--record", QueueLen: 4}))
	const emitters, each = 8, 500
	var wg sync.WaitGroup
	for g := range emitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				hub.Emit(progressEvent(g*each + i))
			}
		}()
	}
	wg.Wait()
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	lostRe := regexp.MustCompile(`could not keep up: (\d+) lines lost`)
	count := func(lines []string) (events, lost int) {
		for _, l := range lines {
			if m := lostRe.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				lost += n
				continue
			}
			events++
		}
		return
	}
	textEvents, textLost := count(strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n"))
	if textEvents+textLost != emitters*each {
		t.Errorf("text: %d lines and %d said lost, want %d in all", textEvents, textLost, emitters*each)
	}
	sc := bufio.NewScanner(&rec)
	var recLines []string
	for sc.Scan() {
		if _, err := DecodeLine(sc.Bytes()); err != nil {
			t.Fatalf("line %d: %v: %q", len(recLines)+1, err, sc.Text())
		}
		recLines = append(recLines, sc.Text())
	}
	recEvents, recLost := count(recLines)
	if recEvents+recLost != emitters*each {
		t.Errorf("recording: %d lines and %d said lost, want %d in all", recEvents, recLost, emitters*each)
	}
	t.Logf("text lost %d, recording lost %d of %d", textLost, recLost, emitters*each)
}

// TestHubRedactsTheConfiguredHeader: the credential header this run was
// told of is redacted by the hub's Redactor, though no global knows it.
func TestHubRedactsTheConfiguredHeader(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WriterConfig{Name: "out"})
	hub := NewHub(model.NewStore(model.Options{}), w)
	hub.Redactor = model.NewRedactor(model.RedactionConfig{Names: []string{"X-Instance-Pass"}})
	e := progressEvent(1)
	e.Kind, e.Headers = model.KindToolCall, map[string]string{"X-Instance-Pass": "hunter2", "Accept": "text/event-stream"}
	hub.Emit(e)
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") || !strings.Contains(out.String(), "text/event-stream") {
		t.Fatalf("recorded: %s", out.String())
	}
	if model.RedactHeader("X-Instance-Pass", "hunter2") != "hunter2" {
		t.Fatal("a hub's Redactor leaked into the package-level one")
	}
	w.Emit(e) // after Close: ignored, no panic
}

// TestEmitNeverWaitsOnAStuckOutput: a stream whose write never returns (a
// pipe nobody reads, a hung disk) costs the emitter nothing: emits return
// at once, the stuck output is said once (stderr and an output_stuck
// warning in the store and the other outputs), Close gives it up within
// its bound, and the store holds every event.
func TestEmitNeverWaitsOnAStuckOutput(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	var other bytes.Buffer
	store := model.NewStore(model.Options{})
	stuck := NewWriter(blockingWriter{block}, WriterConfig{Name: "--record fifo", QueueLen: 8, StallAfter: 50 * time.Millisecond, CloseTimeout: 200 * time.Millisecond})
	hub := NewHub(store, stuck, NewWriter(&other, WriterConfig{Name: "stdout"}))
	var said []string
	var mu sync.Mutex
	hub.OnWriteError = func(err error) { mu.Lock(); said = append(said, err.Error()); mu.Unlock() }
	start := time.Now()
	for i := range 2000 {
		hub.Emit(progressEvent(i))
		if i == 1000 {
			time.Sleep(100 * time.Millisecond) // past StallAfter: the next drop says it
		}
	}
	if d := time.Since(start) - 100*time.Millisecond; d > time.Second {
		t.Errorf("2000 emits took %v beside a stuck output", d)
	}
	start = time.Now()
	err := hub.Close()
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	var gaveUp *GivenUpError
	if !errors.As(err, &gaveUp) || gaveUp.Unwritten < 1990 {
		t.Errorf("Close: %v, want the stuck writer given up with its events counted", err)
	}
	mu.Lock()
	stuckSaid := len(said)
	mu.Unlock()
	if stuckSaid != 1 {
		t.Errorf("said on stderr %d times: %q", stuckSaid, said)
	}
	if !strings.Contains(other.String(), `"code":"output_stuck"`) || strings.Count(other.String(), "\n") != 2001 {
		t.Errorf("the other output: %d lines, want 2000 and one output_stuck warning", strings.Count(other.String(), "\n"))
	}
	snap := store.Snapshot()
	if n := len(snap.Calls); n != 7 {
		t.Errorf("store: %d calls", n)
	}
}

type blockingWriter struct{ block chan struct{} }

func (b blockingWriter) Write(p []byte) (int, error) {
	<-b.block
	return len(p), nil
}

// TestOverflowSaidWhenTheOutputResumes: a paused reader (a pager) loses
// what its queue cannot hold, and once it reads again the output says how
// many lines were lost, between the last line before and the first after.
func TestOverflowSaidWhenTheOutputResumes(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{})}
	var got bytes.Buffer
	g.copy = &got
	w := NewWriter(g, WriterConfig{Name: "stdout", QueueLen: 10})
	hub := NewHub(model.NewStore(model.Options{}), w)
	for i := range 100 {
		hub.Emit(progressEvent(i))
	}
	close(g.open)
	hub.Flush()
	hub.Emit(progressEvent(100))
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
	var lost, events int
	for _, l := range lines {
		m := regexp.MustCompile(`(\d+) lines lost`).FindStringSubmatch(l)
		if m == nil {
			events++
			continue
		}
		n, _ := strconv.Atoi(m[1])
		lost += n
		if !strings.Contains(l, `"code":"output_overflow"`) {
			t.Errorf("overflow line: %s", l)
		}
	}
	if events+lost != 101 || lost == 0 {
		t.Errorf("%d lines, %d said lost, want 101 in all and some lost:\n%s", events, lost, got.String())
	}
}
