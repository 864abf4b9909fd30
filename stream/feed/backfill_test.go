package feed

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"toolscope/model"
)

// historyItem builds one item of the history endpoint from a scripted event.
func historyItem(e feedEvent, second int) map[string]any {
	var envl struct {
		EventType string         `json:"event_type"`
		Data      map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(e.data), &envl); err != nil {
		panic(err)
	}
	return map[string]any{"id": e.id, "task_id": envl.Data["task_id"], "agent_id": "agent-1", "execution_id": "x",
		"timestamp": fmt.Sprintf("2026-07-29T09:00:%02dZ", second), "event_type": envl.EventType, "message": "", "metadata": envl.Data}
}

// historyServer serves a task's history in pages (newest first, as some
// servers do) and its live feed.
func historyServer(t *testing.T, evs []feedEvent, inHistory, pageSize int, live func(w *sseWriter, r *http.Request, conn int)) *feedServer {
	return newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if strings.HasSuffix(r.URL.Path, "/stream") {
			live(w, r, conn)
			return
		}
		var page int
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		var items []map[string]any
		for i := inHistory - 1; i >= 0; i-- {
			items = append(items, historyItem(evs[i], i/2)) // two events a second
		}
		lo, hi := (page-1)*pageSize, min(page*pageSize, len(items))
		w.w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w.w).Encode(map[string]any{"events": items[lo:hi], "total": len(items), "page": page,
			"page_size": pageSize, "has_next": hi < len(items)})
	})
}

// TestBackfill: history first (two pages), then a live feed that replays
// everything from the start; each event is shown once, in order.
func TestBackfill(t *testing.T) {
	evs := scriptTask("task-history-01", 2, 2) // 9 events
	srv := historyServer(t, evs, 5, 3, func(w *sseWriter, r *http.Request, conn int) {
		for _, e := range evs {
			w.raw(e.frame())
		}
	})
	cfg := testConfig(srv.url("task-history-01"))
	cfg.Backfill = true
	c := newCollector()
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(evs))
	for i, e := range evs {
		want[i] = e.id
	}
	if got := c.eventIDs(); !slices.Equal(got, want) {
		t.Fatalf("ids\n got %v\nwant %v", got, want)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs[:2] {
		q := r.URL.Query()
		if !strings.HasSuffix(r.URL.Path, "/tasks/task-history-01/events") || q.Get("page") != fmt.Sprint(i+1) ||
			q.Get("page_size") != "100" || q.Has("include_chunks") || r.Header.Get("Authorization") != "Bearer sk-test-secret" {
			t.Fatalf("history request %d: %s %v", i, r.URL, r.Header)
		}
	}
	if id := reqs[2].Header.Get("Last-Event-ID"); id != "" {
		t.Fatalf("first live connection sent Last-Event-ID %q", id)
	}
	if snap := c.store.Snapshot(); snap.Duplicates != 0 || len(snap.Calls) != 2 {
		t.Fatalf("store duplicates %d calls %d (the feed removes duplicates itself)", snap.Duplicates, len(snap.Calls))
	}
}

// TestBackfillEndedTask: a task whose history holds its end is shown
// without going live.
func TestBackfillEndedTask(t *testing.T) {
	evs := scriptTask("task-history-02", 1, 1)
	srv := historyServer(t, evs, len(evs), 100, func(w *sseWriter, r *http.Request, conn int) {
		t.Error("the live feed was opened for an ended task")
	})
	cfg := testConfig(srv.url("task-history-02"))
	cfg.Backfill = true
	c := newCollector()
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	if len(c.eventIDs()) != len(evs) || len(srv.requests()) != 1 {
		t.Fatalf("ids %v, %d requests", c.eventIDs(), len(srv.requests()))
	}
}

// TestBackfillFails: a history endpoint that fails is a warning; the live
// feed still runs.
func TestBackfillFails(t *testing.T) {
	evs := scriptTask("task-history-03", 1, 1)
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if !strings.HasSuffix(r.URL.Path, "/stream") {
			http.Error(w.w, "no history here", http.StatusNotFound)
			return
		}
		for _, e := range evs {
			w.raw(e.frame())
		}
	})
	cfg := testConfig(srv.url("task-history-03"))
	cfg.Backfill = true
	c := newCollector()
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	w := c.kind(model.KindWarning)
	if len(w) != 1 || w[0].Code != "backfill_failed" || !strings.Contains(w[0].Message, "404") {
		t.Fatalf("warnings %+v", w)
	}
	if len(c.eventIDs()) != len(evs) {
		t.Fatalf("ids %v", c.eventIDs())
	}
}
