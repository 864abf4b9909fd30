package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

// TestNoContentEnds: 204 is SSE's "stop reconnecting".
func TestNoContentEnds(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.w.WriteHeader(http.StatusNoContent)
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-204")), c); err != nil {
		t.Fatal(err)
	}
	if st := c.states(); !slices.Equal(st, []string{"connecting", "ended"}) || len(srv.requests()) != 1 {
		t.Fatalf("states %v, %d requests", st, len(srv.requests()))
	}
}

// TestRetryAfter: a 429's Retry-After holds the next attempt back.
func TestRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var first time.Time
	var gap time.Duration
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		mu.Lock()
		defer mu.Unlock()
		if conn == 1 {
			first = time.Now()
			w.w.Header().Set("Retry-After", "1")
			http.Error(w.w, "slow down", http.StatusTooManyRequests)
			return
		}
		gap = time.Since(first)
		w.frame("task.completed", env("task.completed", "ra-1", map[string]any{}))
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-429")), c); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if gap < 900*time.Millisecond {
		t.Fatalf("retried after %v, Retry-After was 1 s", gap)
	}
	if d := retryAfter(time.Now().Add(2 * time.Minute).UTC().Format(http.TimeFormat)); d < time.Minute || d > 2*time.Minute {
		t.Fatalf("HTTP-date Retry-After: %v", d)
	}
}

// TestHostileEventID: an event id with a line break is de-duplicated like any
// other but never sent back as a header.
func TestHostileEventID(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.call", env("tool.call", "good-1", map[string]any{"tool_call_id": "c1"}))
		w.frame("tool.call", env("tool.call", "bad\r\nX-Injected: 1", map[string]any{"tool_call_id": "c2"}))
		if conn == 1 {
			return
		}
		w.frame("task.completed", env("task.completed", "good-2", map[string]any{}))
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-hostile")), c); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 || reqs[1].Header.Get("Last-Event-ID") != "good-1" || reqs[1].Header.Get("X-Injected") != "" {
		t.Fatalf("%d requests, second %v", len(reqs), reqs[len(reqs)-1].Header)
	}
	if got := c.eventIDs(); len(got) != 3 {
		t.Fatalf("ids %q", got)
	}
}

// TestBadAPIKey: a key with a line break fails at once, without showing it.
func TestBadAPIKey(t *testing.T) {
	c := newCollector()
	cfg := testConfig("http://127.0.0.1:1/v1/agents/a/tasks/t/events/stream")
	cfg.APIKey = "sk-secret\nX-Evil: 1"
	err := runFeed(t, cfg, c)
	if err == nil || strings.Contains(err.Error(), "sk-secret") || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("err %v", err)
	}
}

// TestBackfillIgnoredPage: a history endpoint that ignores page= (the same
// page, has_next forever) is read once.
func TestBackfillIgnoredPage(t *testing.T) {
	evs := scriptTask("task-history-04", 1, 1)
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if strings.HasSuffix(r.URL.Path, "/stream") {
			for _, e := range evs {
				w.raw(e.frame())
			}
			return
		}
		json.NewEncoder(w.w).Encode(map[string]any{"events": []any{historyItem(evs[0], 0), historyItem(evs[1], 1)},
			"total": 1000, "page": 1, "page_size": 2, "has_next": true})
	})
	cfg := testConfig(srv.url("task-history-04"))
	cfg.Backfill = true
	c := newCollector()
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.requests()); n != 3 { // page 1, page 2 (nothing new), the stream
		t.Fatalf("%d requests", n)
	}
	if got := c.eventIDs(); len(got) != len(evs) || c.store.Snapshot().Duplicates != 0 {
		t.Fatalf("ids %v", got)
	}
	if len(c.kind(model.KindWarning)) != 0 {
		t.Fatalf("warnings %+v", c.kind(model.KindWarning))
	}
}

// TestTransportErrorRedacted: a connection error names the feed without the
// credential its query carries, and is retried.
func TestTransportErrorRedacted(t *testing.T) {
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig("http://127.0.0.1:1/v1/agents/a/tasks/t/events/stream?token=qs-secret")
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, c) }()
	waitFor(t, func() bool { return len(c.kind(model.KindSourceStatus)) >= 3 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	var reconnecting int
	for _, e := range c.kind(model.KindSourceStatus) {
		if strings.Contains(e.Detail, "qs-secret") {
			t.Fatalf("credential shown: %q", e.Detail)
		}
		if e.State == model.StateReconnecting {
			reconnecting++
			if !strings.Contains(e.Detail, "token=%5Bredacted%5D") && !strings.Contains(e.Detail, "token=[redacted]") {
				t.Fatalf("detail %q", e.Detail)
			}
		}
	}
	if reconnecting < 2 {
		t.Fatalf("%d reconnecting events", reconnecting)
	}
}

// TestBackoffGrows: a server that greets and hangs up at once is retried
// with growing waits (its greeting is not progress).
func TestBackoffGrows(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("connected", `{"task_id":"t","message":"hi"}`)
		w.frame("error", `{"task_id":"t","error":"backend down"}`)
	})
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, testConfig(srv.url("task-backoff")), c) }()
	reconnecting := func() []string {
		var out []string
		for _, e := range c.kind(model.KindSourceStatus) {
			if e.State == model.StateReconnecting {
				out = append(out, e.Detail)
			}
		}
		return out
	}
	waitFor(t, func() bool { return len(reconnecting()) >= 3 })
	cancel()
	<-done
	for i, d := range reconnecting()[:3] {
		if !strings.HasPrefix(d, fmt.Sprintf("attempt %d ", i+1)) || !strings.Contains(d, "backend down") {
			t.Fatalf("reconnect %d: %q", i+1, d)
		}
	}
}

// TestStalledRefusal: a 401 whose body never ends still ends the feed.
func TestStalledRefusal(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.w.WriteHeader(http.StatusUnauthorized)
		w.w.Write([]byte("denied"))
		w.f.Flush()
		<-r.Context().Done()
	})
	c := newCollector()
	start := time.Now()
	err := runFeed(t, testConfig(srv.url("task-stall")), c)
	var se *statusError
	if !errors.As(err, &se) || se.Status != http.StatusUnauthorized || se.Body != "denied" {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}
