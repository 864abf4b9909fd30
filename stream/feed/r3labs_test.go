package feed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/r3labs/sse/v2"

	"toolscope/model/modeltest"
)

// TestR3labsServer reads a feed served by r3labs/sse's own server, which
// numbers its frames with id: lines and needs ?stream= in the URL (the URL
// is sent as given). The connection is cut once; the client resumes with the
// server's own numeric Last-Event-ID, and the event the server repeats (it
// replays from that id inclusive) is shown once.
func TestR3labsServer(t *testing.T) {
	server := sse.New()
	server.CreateStream("task-r3")
	t.Cleanup(server.Close)
	var mu sync.Mutex
	var lastIDs []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		server.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	evs := scriptTask("task-r3labs-01", 2, 2) // 9 events
	publish := func(es []feedEvent) {
		for _, e := range es {
			server.Publish("task-r3", &sse.Event{Event: []byte(e.name), Data: []byte(e.data)})
		}
	}
	publish(evs[:5]) // before the client connects: the server replays them

	c := newCollector()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, testConfig(FeedURL(ts.URL, "ws", "a", "task-r3labs-01")+"?stream=task-r3"), c)
	}()
	waitFor(t, func() bool { return len(c.eventIDs()) == 5 })
	ts.CloseClientConnections()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(lastIDs) == 2 })
	publish(evs[5:])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(evs))
	for i, e := range evs {
		want[i] = e.id
	}
	if got := c.eventIDs(); !slices.Equal(got, want) {
		t.Fatalf("ids\n got %v\nwant %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(lastIDs, []string{"", "4"}) {
		t.Fatalf("Last-Event-ID sent: %q", lastIDs)
	}
	if snap := c.store.Snapshot(); len(snap.Calls) != 2 || snap.Sources[0].Attempts != 1 {
		t.Fatalf("%d calls, source %+v", len(snap.Calls), snap.Sources[0])
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	modeltest.WaitFor(t, 10*time.Second, "the condition", cond)
}
