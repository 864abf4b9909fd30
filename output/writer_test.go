package output

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	g.lines += bytes.Count(p, []byte("\n"))
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

// TestConcurrentEmittersLoseNoLine: many goroutines emitting through a
// small queue (so emitters wait) write exactly one line per event, each
// whole, on stdout-like output and a recording alike.
func TestConcurrentEmittersLoseNoLine(t *testing.T) {
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
	if got := bytes.Count(text.Bytes(), []byte("\n")); got != emitters*each {
		t.Errorf("text: %d lines, want %d", got, emitters*each)
	}
	sc := bufio.NewScanner(&rec)
	lines := 0
	for sc.Scan() {
		if _, err := model.DecodeLine(sc.Bytes()); err != nil {
			t.Fatalf("line %d: %v: %q", lines+1, err, sc.Text())
		}
		lines++
	}
	if lines != emitters*each {
		t.Errorf("recording: %d lines, want %d", lines, emitters*each)
	}
}

// TestWriterRedactsTheConfiguredHeader: the credential header this run was
// told of is redacted by the writer's Redactor, though no global knows it.
func TestWriterRedactsTheConfiguredHeader(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WriterConfig{Name: "out", Redactor: model.NewRedactor("X-Instance-Pass")})
	e := progressEvent(1)
	e.Kind, e.Headers = model.KindToolCall, map[string]string{"X-Instance-Pass": "hunter2", "Accept": "text/event-stream"}
	w.Emit(e)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") || !strings.Contains(out.String(), "text/event-stream") {
		t.Fatalf("recorded: %s", out.String())
	}
	if model.RedactHeader("X-Instance-Pass", "hunter2") != "hunter2" {
		t.Fatal("a writer's Redactor leaked into the package-level one")
	}
	w.Emit(e) // after Close: ignored, no panic
}
