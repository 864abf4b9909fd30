package otlp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/model"
)

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// emitCalls emits n short calls and returns the slowest Emit.
func emitCalls(e *Exporter, n, from int) time.Duration {
	var slowest time.Duration
	for i := from; i < from+n; i++ {
		id := fmt.Sprint(i)
		for j, kind := range []model.Kind{model.KindToolCall, model.KindToolProgress, model.KindToolResult} {
			ev := model.Event{Time: at(i*10 + j), Source: model.SourceTap, SourceName: "tap:x", Kind: kind,
				Tool: "t", Exchange: id, RequestID: id, Progress: 1}
			start := time.Now()
			e.Emit(ev)
			slowest = max(slowest, time.Since(start))
		}
	}
	return slowest
}

// A collector that is down: one warning, however many exports fail, and
// monitoring goes on (Emit stays fast, Close returns).
func TestCollectorDownWarnsOnce(t *testing.T) {
	e, w := newTestExporter(t, deadURL(t), nil)
	slowest := emitCalls(e, 200, 0)
	if err := e.Flush(context.Background()); err == nil {
		t.Log("flush reported no error") // the batch processor may keep it to itself
	}
	slowest = max(slowest, emitCalls(e, 200, 200))
	e.Flush(context.Background())
	start := time.Now()
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v (a collector down is a warning, not an exit)", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v with the collector down", d)
	}
	ws := w.list()
	if len(ws) != 1 {
		t.Fatalf("%d warnings, want exactly 1: %v", len(ws), ws)
	}
	if ws[0].Kind != model.KindWarning || ws[0].Code != "otlp_export_failed" || !strings.Contains(ws[0].Message, "monitoring goes on") ||
		!strings.Contains(ws[0].Message, "/v1/traces") {
		t.Errorf("warning %+v", ws[0])
	}
	if got, _ := e.watch.counts(); got < 2 {
		t.Errorf("%d failed exports, want several (one warning for all)", got)
	}
	if slowest >= 250*time.Millisecond {
		t.Errorf("slowest Emit %v with the collector down", slowest)
	}
}

// A collector that accepts connections and never answers: Emit never
// waits for it, spans past the queue are dropped, Close gives up in time.
func TestHangingCollectorNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	e, w := newTestExporter(t, hang.URL, func(c *Config) {
		c.QueueSize, c.ExportTimeout, c.CloseTimeout = 64, 300*time.Millisecond, 300*time.Millisecond
		c.Linger = time.Millisecond
	})
	start := time.Now()
	slowest := emitCalls(e, 5000, 0)
	emitted := time.Since(start)
	time.Sleep(50 * time.Millisecond) // the loop makes spans, the queue fills
	start = time.Now()
	e.Close()
	closing := time.Since(start)
	mean := emitted / 15000
	t.Logf("15000 events in %v (mean Emit %v, slowest %v); Close %v", emitted, mean, slowest, closing)
	// Emit never waits for an export (300 ms here): the slowest one is a
	// scheduling hiccup of a loaded machine at worst.
	if slowest >= 250*time.Millisecond || mean > 200*time.Microsecond {
		t.Errorf("Emit: mean %v, slowest %v with a hanging collector", mean, slowest)
	}
	if closing > 3*time.Second {
		t.Errorf("Close took %v", closing)
	}
	if len(w.list()) != 1 {
		t.Errorf("%d warnings, want 1", len(w.list()))
	}
}

// A collector that comes back ends the outage: a later outage warns again.
func TestWarningRearmsAfterSuccess(t *testing.T) {
	c := newCollector(t)
	var failing atomic.Bool
	failing.Store(true)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		c.Config.Handler.ServeHTTP(w, r)
	}))
	defer flaky.Close()
	e, w := newTestExporter(t, flaky.URL, nil)
	emitCalls(e, 3, 0)
	e.Flush(context.Background())
	emitCalls(e, 3, 3)
	e.Flush(context.Background())
	if n := len(w.list()); n != 1 {
		t.Fatalf("%d warnings during the first outage, want 1", n)
	}
	failing.Store(false)
	emitCalls(e, 3, 6)
	e.Flush(context.Background())
	failing.Store(true)
	emitCalls(e, 3, 9)
	e.Flush(context.Background())
	e.Close()
	if n := len(w.list()); n != 2 {
		t.Fatalf("%d warnings, want 2 (one per outage)", n)
	}
	if len(c.all()) != 3 {
		t.Errorf("%d spans reached the collector while it was up, want 3", len(c.all()))
	}
}
