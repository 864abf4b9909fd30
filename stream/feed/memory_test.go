package feed

import (
	"fmt"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// heapPeak samples the live heap (as the latest GC marked it: garbage not
// yet collected is not memory held) until stop, and reports its peak growth
// over the heap in use when it started (after a GC).
type heapPeak struct {
	base, peak uint64
	stop, done chan struct{}
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{base: liveHeap(), stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(h.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			h.peak = max(h.peak, sample[0].Value.Uint64())
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// growth stops sampling and returns the peak over the start, in bytes.
func (h *heapPeak) growth() uint64 {
	close(h.stop)
	<-h.done
	if h.peak < h.base {
		return 0
	}
	return h.peak - h.base
}

var liveHeap = modeltest.LiveHeap

// storeSink applies events to a store as the monitor does, keeping none.
func storeSink() (*model.Store, model.Sink, *atomic.Int64) {
	s := model.NewStore(model.Options{})
	var warnings atomic.Int64
	return s, model.SinkFunc(func(e model.Event) {
		if e.Kind == model.KindWarning {
			warnings.Add(1)
		}
		s.Apply(e)
	}), &warnings
}

// TestLongEventIDsBounded: events with distinct long event_ids (the issue:
// 400 of 1 MiB) leave a few hundred bytes each in memory, not the id: the
// de-dup sets keep hashes and a kept event keeps a cut id.
func TestLongEventIDsBounded(t *testing.T) {
	const n, idLen = 24, 256 << 10 // 6 MiB of ids
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		for i := range n {
			id := fmt.Sprintf("%03d", i) + strings.Repeat("x", idLen)
			w.frame("workflow.note", env("workflow.note", id, map[string]any{"task_id": "task-long-ids"}))
		}
		w.frame("task.completed", env("task.completed", "end", map[string]any{"task_id": "task-long-ids"}))
	})
	store, sink, _ := storeSink()
	base := liveHeap()
	if err := runFeed(t, testConfig(srv.url("task-long-ids")), sink); err != nil {
		t.Fatal(err)
	}
	after := liveHeap()
	kept := after - min(base, after)
	t.Logf("%d KiB kept", kept>>10)
	snap := store.Snapshot()
	if snap.Events < n || snap.Duplicates != 0 {
		t.Fatalf("events %d duplicates %d", snap.Events, snap.Duplicates)
	}
	// Per event: well under 16 KiB kept (the ids alone were 256 KiB each).
	if kept > n*16<<10 {
		t.Fatalf("%d KiB kept after %d events with %d KiB ids", kept>>10, n, idLen>>10)
	}
	for _, e := range snap.Other {
		if len(e.EventID) > maxLastEventID+100 {
			t.Fatalf("a kept event holds a %d-byte id", len(e.EventID))
		}
	}
	runtime.KeepAlive(store)
}

// historyItemJSON is one small pass-through history item.
func historyItemJSON(id string, second int) string {
	return fmt.Sprintf(`{"id":%q,"task_id":"task-h","timestamp":"2026-07-29T09:%02d:%02dZ","event_type":"workflow.note","message":"m","metadata":{"task_id":"task-h","pad":%q}}`,
		id, second/60%60, second%60, strings.Repeat("p", 900))
}

// TestHistoryHugeItemSkipped: a history page holding an event far over
// --max-event-bytes is read as a stream: the event is skipped with a
// warning, the rest of the page is shown, and the heap never holds it
// (the issue: a 256 MiB event took 1.8 GiB; here 12 MiB against a 1 MiB
// limit, the bound being per item).
func TestHistoryHugeItemSkipped(t *testing.T) {
	const huge = 12 << 20
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if strings.HasSuffix(r.URL.Path, "/stream") {
			w.frame("task.completed", env("task.completed", "end", map[string]any{"task_id": "task-h"}))
			return
		}
		w.w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w.w, `{"events":[`+historyItemJSON("h-1", 1)+`,{"id":"h-big","event_type":"workflow.note","metadata":{"pad":"`)
		chunk := strings.Repeat("a", 64<<10)
		for range huge / len(chunk) {
			fmt.Fprint(w.w, chunk)
		}
		fmt.Fprint(w.w, `"}},`+historyItemJSON("h-2", 2)+`],"has_next":false,"total":3}`)
	})
	cfg := testConfig(srv.url("task-h"))
	cfg.Backfill = true
	cfg.MaxEventBytes = 1 << 20
	c := newCollector()
	peak := startHeapPeak()
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	grew := peak.growth()
	w := c.kind(model.KindWarning)
	if len(w) != 1 || w[0].Code != "history_event_too_large" || !strings.Contains(w[0].Message, "over the 1048576-byte limit") {
		t.Fatalf("warnings %+v", w)
	}
	if ids := strings.Join(c.eventIDs(), " "); ids != "h-1 h-2 end" {
		t.Fatalf("ids %q", ids)
	}
	t.Logf("heap grew %d KiB", grew>>10)
	if grew > 8<<20 {
		t.Fatalf("heap grew %d MiB reading a %d MiB history event (limit 1 MiB)", grew>>20, huge>>20)
	}
}

// TestHistoryEndlessPages: a history endpoint that always says has_next
// is read up to --max-history-pages, with a warning, and what it sent is
// shown as it comes, not held until the last page (the issue: 8.6 GiB
// after 60 s).
func TestHistoryEndlessPages(t *testing.T) {
	defer func(v int64) { historyHoldBytes = v }(historyHoldBytes)
	historyHoldBytes = 256 << 10
	const pages, perPage = 100, 50 // about 5 MiB of history
	var served atomic.Int64
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if strings.HasSuffix(r.URL.Path, "/stream") {
			w.frame("task.completed", env("task.completed", "end", map[string]any{"task_id": "task-h"}))
			return
		}
		p := served.Add(1)
		items := make([]string, perPage)
		for i := range items {
			n := int(p)*perPage + i
			items[i] = historyItemJSON(fmt.Sprintf("p%d-%d", p, i), n)
		}
		w.w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w.w, `{"events":[`+strings.Join(items, ",")+`],"has_next":true}`)
	})
	cfg := testConfig(srv.url("task-h"))
	cfg.Backfill = true
	cfg.MaxHistoryPages = pages
	store, inner, _ := storeSink()
	var firstShownAt atomic.Int64
	var once sync.Once
	var warned []model.Event
	var mu sync.Mutex
	sink := model.SinkFunc(func(e model.Event) {
		if e.EventID != "" {
			once.Do(func() { firstShownAt.Store(served.Load()) })
		}
		if e.Kind == model.KindWarning {
			mu.Lock()
			warned = append(warned, e)
			mu.Unlock()
		}
		inner.Emit(e)
	})
	peak := startHeapPeak()
	if err := runFeed(t, cfg, sink); err != nil {
		t.Fatal(err)
	}
	grew := peak.growth()
	if n := served.Load(); n != pages {
		t.Fatalf("%d pages read, want %d", n, pages)
	}
	if len(warned) != 1 || warned[0].Code != "history_truncated" {
		t.Fatalf("warnings %+v", warned)
	}
	if at := firstShownAt.Load(); at >= pages/2 {
		t.Fatalf("the first event was shown after page %d of %d", at, pages)
	}
	// What stays: the store's last 1000 events, the hashes of the ids, one
	// held batch; the pages are not all held (checked above).
	t.Logf("heap grew %d KiB over %d pages", grew>>10, pages)
	if grew > 8<<20 {
		t.Fatalf("heap grew %d MiB over %d pages", grew>>20, pages)
	}
	runtime.KeepAlive(store)
}
