package feed

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

// TestFraming runs one task over LF, CRLF and CR framing, with comment lines,
// a connected frame, a heartbeat and the first frame split across writes.
func TestFraming(t *testing.T) {
	for name, eol := range map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r"} {
		t.Run(name, func(t *testing.T) {
			evs := scriptTask("task-frame-0001", 2, 3)
			srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
				w.eol = eol
				w.raw(": comment before anything\n\n")
				w.frame("connected", `{"task_id":"task-frame-0001","agent_id":"a","execution_id":"x1","message":"Connected to task"}`)
				first := evs[0].frame()
				w.raw(first[:10]) // a frame split across two writes
				w.raw(first[10:])
				for i, e := range evs[1:] {
					if i == 2 {
						w.raw(": keep-alive\n")
						w.frame("heartbeat", `{"task_id":"task-frame-0001"}`)
					}
					w.raw(e.frame())
				}
			})
			c := newCollector()
			if err := runFeed(t, testConfig(srv.url("task-frame-0001")), c); err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(evs))
			for i, e := range evs {
				want[i] = e.id
			}
			if got := c.eventIDs(); !slices.Equal(got, want) {
				t.Fatalf("event ids\n got %v\nwant %v", got, want)
			}
			if w := c.kind(model.KindWarning); len(w) != 0 {
				t.Fatalf("warnings: %+v", w)
			}
			snap := c.store.Snapshot()
			if len(snap.Calls) != 2 {
				t.Fatalf("calls: %d", len(snap.Calls))
			}
			for _, call := range snap.Calls {
				if call.TaskID != "task-frame-0001" || call.Progress.Relayed != 3 || call.Status == model.StatusRunning || call.AgentName != "mcp__srv__work" {
					t.Fatalf("call %+v", call)
				}
			}
			if st := c.states(); !slices.Equal(st, []string{"connecting", "connected", "connected", "ended"}) {
				t.Fatalf("states %v", st)
			}
			if src := snap.Sources[0]; src.Name != "task-fra" || src.State != model.StateEnded {
				t.Fatalf("source %+v", src)
			}

			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if r.URL.RawQuery != "include_chunks=false" || r.Header.Get("Authorization") != "Bearer sk-test-secret" ||
				r.Header.Get("Accept") != "text/event-stream" || r.Header.Get("Last-Event-ID") != "" {
				t.Fatalf("request %s %v", r.URL, r.Header)
			}
		})
	}
}

// TestLargeResult carries a 1 MiB tool.result between small events.
func TestLargeResult(t *testing.T) {
	big := strings.Repeat("é", 1<<19) // 1 MiB of UTF-8, 524288 characters
	result := env("tool.result", "big-2", map[string]any{"tool_call_id": "c1", "success": true, "result": big,
		"structured_content": map[string]any{"rows": strings.Repeat("r", 1000)}})
	if len(result) < 1<<20 {
		t.Fatalf("frame is %d bytes", len(result))
	}
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.call", env("tool.call", "big-1", map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t"}))
		w.frame("tool.result", result)
		w.frame("tool.call", env("tool.call", "big-3", map[string]any{"tool_call_id": "c2", "tool_name": "mcp__s__t"}))
		w.frame("task.completed", env("task.completed", "big-4", map[string]any{}))
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-big")), c); err != nil {
		t.Fatal(err)
	}
	if got := c.eventIDs(); !slices.Equal(got, []string{"big-1", "big-2", "big-3", "big-4"}) {
		t.Fatalf("ids %v", got)
	}
	res := c.kind(model.KindToolResult)[0]
	if res.TextChars != 1<<19 || !res.Offloaded || res.StructuredContentBytes == 0 {
		t.Fatalf("result chars %d offloaded %v structured %d", res.TextChars, res.Offloaded, res.StructuredContentBytes)
	}
}

// TestEventOverLimit: an event over MaxEventBytes fails the source with a
// message naming the limit, rather than replaying it forever.
func TestEventOverLimit(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.result", env("tool.result", "x1", map[string]any{"tool_call_id": "c", "result": strings.Repeat("a", 200<<10)}))
	})
	cfg := testConfig(srv.url("task-limit"))
	cfg.MaxEventBytes = 64 << 10
	c := newCollector()
	err := runFeed(t, cfg, c)
	if err == nil || !strings.Contains(err.Error(), "65536-byte limit") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
	if st := c.states(); st[len(st)-1] != model.StateFailed {
		t.Fatalf("states %v", st)
	}
}

// TestMalformedAndUnknown: a frame that is not JSON becomes a warning
// between the good ones; unknown and approval events pass through.
func TestMalformedAndUnknown(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.call", env("tool.call", "m-1", map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t"}))
		w.frame("tool.progress", `{"event_type":"tool.progress","event_id":"m-x","data":{"tool_call_id":"c1","progress":`)
		w.frame("approval.request", env("approval.request", "m-2", map[string]any{"tool_call_id": "c1", "escalation_id": "esc", "approvers": []string{"ops"}}))
		w.frame("brand.new_thing", env("brand.new_thing", "m-3", map[string]any{"x": 1}))
		w.frame("tool.result", env("tool.result", "m-4", map[string]any{"tool_call_id": "c1", "success": true, "result": "fine"}))
		w.frame("task.completed", env("task.completed", "m-5", map[string]any{}))
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-malformed")), c); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range c.Events() {
		if e.Kind != model.KindSourceStatus {
			kinds = append(kinds, string(e.Kind)+":"+e.EventType+e.Code)
		}
	}
	want := []string{"tool.call:", "warning:malformed_event", "event:approval.request", "event:brand.new_thing", "tool.result:", "task.status:task.completed"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds\n got %v\nwant %v", kinds, want)
	}
	call := c.store.Snapshot().FindCall("c1")
	if call == nil || call.Status == model.StatusRunning {
		t.Fatalf("call %+v", call)
	}
}

// TestReconnectReplay drops the connection mid-event three times. The server
// resumes after Last-Event-ID twice and once replays from the start; every
// event is seen exactly once, in order, with no warning for the cut frames.
func TestReconnectReplay(t *testing.T) {
	for name, eol := range map[string]string{"LF": "\n", "CRLF": "\r\n"} {
		t.Run(name, func(t *testing.T) { testReconnectReplay(t, eol) })
	}
}

func testReconnectReplay(t *testing.T, eol string) {
	evs := scriptTask("task-replay-0001", 3, 2) // 13 events
	index := func(id string) int {
		for i, e := range evs {
			if e.id == id {
				return i + 1
			}
		}
		return 0
	}
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		from := index(r.Header.Get("Last-Event-ID")) // resume after it
		var upTo int                                 // events sent whole before the cut
		switch conn {
		case 1:
			upTo = 3
		case 2:
			upTo = 6
		case 3:
			from, upTo = 0, 9 // replays from the start
		default:
			upTo = len(evs)
		}
		w.eol = eol
		w.raw(": hello\n\n")
		for _, e := range evs[from:upTo] {
			w.raw(e.frame())
		}
		if upTo == len(evs) {
			return
		}
		cut := evs[upTo].frame()
		w.raw(cut[:len(cut)/2])
		if conn == 2 {
			return // a clean end of the body in the middle of a frame
		}
		w.abort() // a broken connection
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-replay-0001")), c); err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(evs))
	for i, e := range evs {
		want[i] = e.id
	}
	if got := c.eventIDs(); !slices.Equal(got, want) {
		t.Fatalf("event ids\n got %v\nwant %v", got, want)
	}
	var lastIDs []string
	for _, r := range srv.requests() {
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
	}
	if wantIDs := []string{"", evs[2].id, evs[5].id, evs[8].id}; !slices.Equal(lastIDs, wantIDs) {
		t.Fatalf("Last-Event-ID sent %q, want %q", lastIDs, wantIDs)
	}
	if w := c.kind(model.KindWarning); len(w) != 0 {
		t.Fatalf("warnings: %+v", w)
	}
	var reconnecting []model.Event
	for _, e := range c.kind(model.KindSourceStatus) {
		if e.State == model.StateReconnecting {
			reconnecting = append(reconnecting, e)
		}
	}
	if len(reconnecting) != 3 {
		t.Fatalf("reconnecting events: %+v", reconnecting)
	}
	for _, e := range reconnecting {
		if !strings.HasPrefix(e.Detail, "attempt 1 ") {
			t.Fatalf("each reconnect followed new events, so backoff starts over: %q", e.Detail)
		}
	}
	if !strings.Contains(reconnecting[1].Detail, "middle of an event") {
		t.Fatalf("detail of the clean cut: %q", reconnecting[1].Detail)
	}
	snap := c.store.Snapshot()
	if snap.Sources[0].Attempts != 3 || len(snap.Calls) != 3 {
		t.Fatalf("source %+v, %d calls", snap.Sources[0], len(snap.Calls))
	}
}

// TestRefused: 401, 403 and 404 end the source at once, naming the URL and
// the status, never the key.
func TestRefused(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
				http.Error(w.w, `{"detail":"nope","echo":"`+r.Header.Get("Authorization")+`"}`, status)
			})
			c := newCollector()
			url := srv.url("task-refused")
			err := runFeed(t, testConfig(url), c)
			var se *statusError
			if !errors.As(err, &se) || se.Status != status {
				t.Fatalf("err %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, url) || !strings.Contains(msg, http.StatusText(status)) || strings.Contains(msg, "sk-test-secret") || !strings.Contains(msg, "nope") {
				t.Fatalf("message %q", msg)
			}
			if n := len(srv.requests()); n != 1 {
				t.Fatalf("%d requests: a refusal is not retried", n)
			}
			if st := c.states(); !slices.Equal(st, []string{"connecting", "failed"}) {
				t.Fatalf("states %v", st)
			}
			for _, e := range c.Events() {
				if strings.Contains(e.Detail+e.Message, "sk-test-secret") {
					t.Fatalf("the key leaked: %+v", e)
				}
			}
		})
	}
}

// TestRetriedFailures: a 500 and a page that is not an event stream are
// retried, with backoff growing, until the server answers.
func TestRetriedFailures(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		switch conn {
		case 1:
			http.Error(w.w, "upstream down", http.StatusInternalServerError)
		case 2:
			w.w.Header().Set("Content-Type", "text/html")
			w.w.Write([]byte("<html>login</html>"))
		case 3:
			w.frame("error", `{"task_id":"t","error":"stream backend restarted"}`)
		default:
			w.frame("task.completed", env("task.completed", "r-1", map[string]any{}))
		}
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-retry")), c); err != nil {
		t.Fatal(err)
	}
	var details []string
	for _, e := range c.kind(model.KindSourceStatus) {
		if e.State == model.StateReconnecting {
			details = append(details, e.Detail)
		}
	}
	if len(details) != 3 || !strings.HasPrefix(details[0], "attempt 1 ") || !strings.Contains(details[0], "500") ||
		!strings.HasPrefix(details[1], "attempt 2 ") || !strings.Contains(details[1], "text/html") ||
		!strings.Contains(details[2], "stream backend restarted") {
		t.Fatalf("reconnecting details %q", details)
	}
	if w := c.kind(model.KindWarning); len(w) != 1 || w[0].Code != "feed_error" {
		t.Fatalf("warnings %+v", w)
	}
}

// TestTaskEnds: task.completed waiting for input does not end the feed;
// task.failed does, and nothing after it is shown.
func TestTaskEnds(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("task.completed", env("task.completed", "e-1", map[string]any{"execution_status": "waiting"}))
		w.frame("tool.call", env("tool.call", "e-2", map[string]any{"tool_call_id": "c1"}))
		w.frame("task.failed", env("task.failed", "e-3", map[string]any{"message": "it broke", "reason": "budget"}))
		w.frame("tool.call", env("tool.call", "e-4", map[string]any{"tool_call_id": "c2"}))
		<-r.Context().Done() // the client must hang up by itself
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-ends")), c); err != nil {
		t.Fatal(err)
	}
	if got := c.eventIDs(); !slices.Equal(got, []string{"e-1", "e-2", "e-3"}) {
		t.Fatalf("ids %v", got)
	}
	st := c.kind(model.KindSourceStatus)
	if last := st[len(st)-1]; last.State != model.StateEnded || !strings.Contains(last.Detail, "task.failed") {
		t.Fatalf("last status %+v", last)
	}
	ts := c.kind(model.KindTaskStatus)
	if len(ts) != 2 || ts[1].Reason != "budget" || ts[1].Message != "it broke" {
		t.Fatalf("task status %+v", ts)
	}
}

// TestTwoTasks runs two feeds at once into one store.
func TestTwoTasks(t *testing.T) {
	tasks := map[string][]feedEvent{
		"task-aaaa-1111": scriptTask("task-aaaa-1111", 3, 4),
		"task-bbbb-2222": scriptTask("task-bbbb-2222", 2, 5),
	}
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		task := taskIDFromPath(r.URL.Path)
		for _, e := range tasks[task] {
			w.raw(e.frame())
		}
	})
	c := newCollector()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runFeed(t, testConfig(srv.url(task)), c)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	snap := c.store.Snapshot()
	if len(snap.Calls) != 5 || len(snap.Sources) != 2 {
		t.Fatalf("%d calls, %d sources", len(snap.Calls), len(snap.Sources))
	}
	for _, src := range snap.Sources {
		if src.State != model.StateEnded || (src.Name != "task-aaa" && src.Name != "task-bbb") {
			t.Fatalf("source %+v", src)
		}
	}
	perTask := map[string]int{}
	for _, call := range snap.Calls {
		perTask[call.TaskID]++
		if call.Status == model.StatusRunning {
			t.Fatalf("running call %+v", call)
		}
	}
	if perTask["task-aaaa-1111"] != 3 || perTask["task-bbbb-2222"] != 2 {
		t.Fatalf("calls per task %v", perTask)
	}
	// Each task's events arrived in its own order.
	for task, evs := range tasks {
		var got []string
		for _, id := range c.eventIDs() {
			if strings.HasPrefix(id, task) {
				got = append(got, id)
			}
		}
		for i, e := range evs {
			if got[i] != e.id {
				t.Fatalf("%s order: %v", task, got)
			}
		}
	}
}

// TestCancel: cancelling the context ends the feed with ctx.Err().
func TestCancel(t *testing.T) {
	started := make(chan struct{})
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.call", env("tool.call", "k-1", map[string]any{"tool_call_id": "c1"}))
		close(started)
		<-r.Context().Done()
	})
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, testConfig(srv.url("task-cancel")), c) }()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	st := c.kind(model.KindSourceStatus)
	if last := st[len(st)-1]; last.State != model.StateEnded || last.Detail != "stopped" {
		t.Fatalf("last status %+v", last)
	}
}

// TestSixteenMiBEvent: an event just under the default 16 MiB limit goes
// through, arriving over many reads.
func TestSixteenMiBEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MiB event")
	}
	prefix := `{"event_type":"tool.result","event_id":"huge-1","data":{"tool_call_id":"c1","success":true,"result":"`
	suffix := `"}}`
	result := strings.Repeat("z", defaultMaxEventBytes-len(prefix)-len(suffix)-64)
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.raw("event: tool.result\ndata: " + prefix + result + suffix + "\n\n")
		w.frame("task.completed", env("task.completed", "huge-2", map[string]any{}))
	})
	c := newCollector()
	start := time.Now()
	if err := runFeedWithin(t, 2*time.Minute, testConfig(srv.url("task-huge")), c); err != nil {
		t.Fatal(err)
	}
	res := c.kind(model.KindToolResult)
	if len(res) != 1 || res[0].TextChars != len(result) {
		t.Fatalf("results %d", len(res))
	}
	t.Logf("16 MiB event read in %v", time.Since(start))
}

// TestMultiLineData: a JSON object split over several data: lines (joined
// with line breaks, as SSE says) decodes like one line.
func TestMultiLineData(t *testing.T) {
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.raw("event: tool.call\ndata: {\"event_type\": \"tool.call\",\ndata:  \"event_id\": \"ml-1\",\ndata: \"data\": {\"tool_call_id\": \"c1\", \"tool_name\": \"mcp__a__b\"}}\n\n")
		w.raw("id: 17\nevent: task.completed\nretry: 5000\ndata: {\"event_type\":\"task.completed\",\"event_id\":\"ml-2\",\"data\":{}}\n\n")
	})
	c := newCollector()
	if err := runFeed(t, testConfig(srv.url("task-multiline")), c); err != nil {
		t.Fatal(err)
	}
	calls := c.kind(model.KindToolCall)
	if got := c.eventIDs(); !slices.Equal(got, []string{"ml-1", "ml-2"}) || len(calls) != 1 || calls[0].Tool != "mcp__a__b" {
		t.Fatalf("ids %v calls %+v", got, calls)
	}
}
