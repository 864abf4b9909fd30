package feed

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

// keySink is a loopback server that records the Authorization of every
// request it gets (the place a redirect must not carry the key to).
type keySink struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newKeySink(t *testing.T) *keySink {
	k := &keySink{}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.auth = append(k.auth, r.Header.Get("Authorization"))
		k.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(k.Close)
	return k
}

func (k *keySink) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.auth...)
}

// redirector answers every request with a 302 to the same path on target.
func redirector(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusFound)
	})
}

// TestRedirectToOtherPortRefused: a 302 to another port of the same host
// is not followed, for the history and the stream; the key never gets
// there, and the message names both URLs.
func TestRedirectToOtherPortRefused(t *testing.T) {
	other := newKeySink(t)
	srv := httptest.NewServer(redirector(other.URL))
	defer srv.Close()
	cfg := testConfig(FeedURL(srv.URL, "ws", "agent-1", "task-redirect-1"))
	cfg.Backfill = true
	c := newCollector()
	err := runFeed(t, cfg, c)
	var re *redirectError
	if !errors.As(err, &re) {
		t.Fatalf("Run: %v, want a redirectError", err)
	}
	if got := other.seen(); len(got) != 0 {
		t.Fatalf("the other port got %d requests (Authorization %q)", len(got), got)
	}
	if !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), other.URL) {
		t.Fatalf("message does not name both URLs: %v", err)
	}
	w := c.kind(model.KindWarning)
	if len(w) != 1 || w[0].Code != "backfill_failed" || !strings.Contains(w[0].Message, other.URL+"/v1/workspaces/ws/agents/agent-1/tasks/task-redirect-1/events?") {
		t.Fatalf("history warning %+v", w)
	}
	if st := c.states(); st[len(st)-1] != model.StateFailed {
		t.Fatalf("states %v", st)
	}
}

// TestRedirectHTTPSToHTTPRefused: an https feed that redirects to plain
// http is not followed, with or without a key.
func TestRedirectHTTPSToHTTPRefused(t *testing.T) {
	for _, key := range []string{"sk-test-secret", ""} {
		plain := newKeySink(t)
		tlsSrv := httptest.NewTLSServer(redirector(plain.URL))
		cfg := testConfig(FeedURL(tlsSrv.URL, "ws", "agent-1", "task-redirect-2"))
		cfg.APIKey = key
		cfg.Backfill = true
		cfg.HTTPClient = tlsSrv.Client()
		c := newCollector()
		err := runFeed(t, cfg, c)
		tlsSrv.Close()
		var re *redirectError
		if !errors.As(err, &re) || re.Reason != "https to plain http" {
			t.Fatalf("key %q: Run: %v", key, err)
		}
		if got := plain.seen(); len(got) != 0 {
			t.Fatalf("key %q: plain http got %d requests (Authorization %q)", key, len(got), got)
		}
	}
}

// TestRedirectSameOriginFollowed: a redirect within the same scheme, host
// and port is followed, and the status says where it led.
func TestRedirectSameOriginFollowed(t *testing.T) {
	evs := scriptTask("task-redirect-3", 1, 0)
	var srv *feedServer
	srv = newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		if !strings.HasPrefix(r.URL.Path, "/moved") {
			http.Redirect(w.w, r, "/moved"+r.URL.RequestURI(), http.StatusFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test-secret" {
			t.Errorf("the key was not sent after a same-origin redirect")
		}
		for _, e := range evs {
			w.raw(e.frame())
		}
	})
	c := newCollector()
	cfg := testConfig(srv.url("task-redirect-3"))
	cfg.Backfill = true
	if err := runFeed(t, cfg, c); err != nil {
		t.Fatal(err)
	}
	var detail, history string
	for _, e := range c.kind(model.KindSourceStatus) {
		if e.State == model.StateConnected {
			detail = e.Detail
		}
		if strings.HasPrefix(e.Detail, "history redirected to ") {
			history = e.Detail
		}
	}
	if !strings.Contains(history, srv.URL+"/moved/") {
		t.Fatalf("no status for the history's redirect: %v", c.kind(model.KindSourceStatus))
	}
	if !strings.Contains(detail, "redirected to "+srv.URL+"/moved/") {
		t.Fatalf("connected status %q", detail)
	}
	if len(c.eventIDs()) != len(evs) {
		t.Fatalf("ids %v", c.eventIDs())
	}
}

// TestSilentServer: a server that accepts and never answers holds the
// feed for the header wait (said in the connecting status), not a minute;
// the history's error names the history URL, the stream's the stream URL.
func TestSilentServer(t *testing.T) {
	defer func(d time.Duration) { connectTimeout = d }(connectTimeout)
	connectTimeout = 300 * time.Millisecond
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	feedURL := FeedURL(srv.URL, "ws", "agent-1", "task-silent")
	cfg := testConfig(feedURL)
	cfg.Backfill = true
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- Run(ctx, cfg, c) }()
	for time.Since(start) < 5*time.Second {
		if slices.Contains(c.states(), model.StateReconnecting) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	evs := c.kind(model.KindSourceStatus)
	if evs[0].State != model.StateConnecting || !strings.Contains(evs[0].Detail, "waiting up to 300ms for an answer") {
		t.Fatalf("first status %+v", evs[0])
	}
	w := c.kind(model.KindWarning)
	historyURL := strings.TrimSuffix(feedURL, "/stream")
	if len(w) != 1 || !strings.Contains(w[0].Message, historyURL+" (history page 1)") || strings.Contains(w[0].Message, "/stream") ||
		!strings.Contains(w[0].Message, "no answer within 300ms") {
		t.Fatalf("history warning %+v", w)
	}
	var reconnecting string
	for _, e := range evs {
		if e.State == model.StateReconnecting {
			reconnecting = e.Detail
			break
		}
	}
	if !strings.Contains(reconnecting, "no answer within 300ms") {
		t.Fatalf("reconnecting %q (states %v)", reconnecting, c.states())
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
}
