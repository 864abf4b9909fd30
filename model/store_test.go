package model

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func f64(v float64) *float64 { return &v }

// Builders for the events the join tests use.
func feedCall(ms int, eventID string) Event {
	return Event{Time: at(ms), Source: SourceFeed, SourceName: "task-1", Kind: KindToolCall,
		TaskID: "T1", ToolCallID: "call_a", Tool: "mcp__sheets__read", EventID: eventID}
}

func tapCall(ms int, exchange string) Event {
	return Event{Time: at(ms), Source: SourceTap, SourceName: "tap", Kind: KindToolCall,
		TaskID: "T1", ToolCallID: "call_a", IdempotencyKey: "T1:call_a", Tool: "read",
		Exchange: exchange, RequestID: "3", Context: &Context{Present: true, Verdict: VerdictValid}}
}

func tapProgress(ms int, exchange string, p float64, relayed bool) Event {
	return Event{Time: at(ms), Source: SourceTap, SourceName: "tap", Kind: KindToolProgress,
		TaskID: "T1", ToolCallID: "call_a", IdempotencyKey: "T1:call_a", Exchange: exchange,
		Progress: p, Total: f64(23), Relayed: BoolRef(relayed)}
}

func feedProgress(ms int, eventID string, p float64) Event {
	return Event{Time: at(ms), Source: SourceFeed, SourceName: "task-1", Kind: KindToolProgress,
		TaskID: "T1", ToolCallID: "call_a", EventID: eventID, Progress: p, Total: f64(23), Relayed: BoolRef(true)}
}

func feedResult(ms int, eventID string, attempt int, replayed bool) Event {
	return Event{Time: at(ms), Source: SourceFeed, SourceName: "task-1", Kind: KindToolResult,
		TaskID: "T1", ToolCallID: "call_a", EventID: eventID, Attempt: attempt, Replayed: replayed, TextChars: 12}
}

func tapResult(ms int, exchange string) Event {
	return Event{Time: at(ms), Source: SourceTap, SourceName: "tap", Kind: KindToolResult,
		TaskID: "T1", ToolCallID: "call_a", IdempotencyKey: "T1:call_a", Exchange: exchange, HTTPStatus: 200, TextChars: 12}
}

func TestJoinRules(t *testing.T) {
	type want struct {
		calls, attempts       int
		status                Status
		sent, relayed, wouldR int
		replayed              bool
		sources               int
	}
	cases := []struct {
		name   string
		events []Event
		want   want
	}{
		{"feed then tap is one call", []Event{
			feedCall(0, "e1"), tapCall(10, "1"), tapProgress(20, "1", 1, true), feedProgress(25, "e2", 1),
			tapProgress(30, "1", 2, false), tapResult(40, "1"), feedResult(45, "e3", 0, false),
		}, want{calls: 1, attempts: 1, status: StatusOK, sent: 2, relayed: 1, wouldR: 1, sources: 2}},
		{"tap then feed is one call", []Event{
			tapCall(0, "1"), feedCall(5, "e1"), tapProgress(20, "1", 1, true), tapResult(40, "1"), feedResult(45, "e3", 0, false),
		}, want{calls: 1, attempts: 1, status: StatusOK, sent: 1, relayed: 0, wouldR: 1, sources: 2}},
		{"out of order: result and progress before call", []Event{
			feedResult(45, "e3", 0, false), feedProgress(25, "e2", 5), tapProgress(20, "1", 5, true), tapCall(0, "1"), feedCall(1, "e1"),
		}, want{calls: 1, attempts: 1, status: StatusOK, sent: 1, relayed: 1, wouldR: 1, sources: 2}},
		{"duplicate feed events are ignored", []Event{
			feedCall(0, "e1"), feedProgress(10, "e2", 1), feedProgress(10, "e2", 1), feedCall(0, "e1"), feedResult(20, "e3", 0, false), feedResult(20, "e3", 0, false),
		}, want{calls: 1, attempts: 1, status: StatusOK, relayed: 1, sent: 1, sources: 1}},
		{"retry through the tap: same idempotency key is attempt 2", []Event{
			tapCall(0, "1"), tapProgress(10, "1", 1, true),
			{Time: at(20), Source: SourceTap, SourceName: "tap", Kind: KindToolCancelled, IdempotencyKey: "T1:call_a", TaskID: "T1", ToolCallID: "call_a", Exchange: "1", Reason: "stream broke"},
			tapCall(100, "2"), tapResult(120, "2"), feedResult(130, "e9", 2, true),
		}, want{calls: 1, attempts: 2, status: StatusOK, sent: 1, wouldR: 1, replayed: true, sources: 2}},
		{"retry seen only by the feed: attempt field", []Event{
			feedCall(0, "e1"), feedResult(10, "e2", 0, false), feedCall(20, "e3"), feedResult(30, "e4", 2, true),
		}, want{calls: 1, attempts: 2, status: StatusOK, replayed: true, sources: 1}},
		{"tap calls without AgentArea ids stay apart even with the same JSON-RPC id", []Event{
			{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "a", Exchange: "1", RequestID: "1"},
			{Time: at(5), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "b", Exchange: "2", RequestID: "1"},
			{Time: at(9), Source: SourceTap, SourceName: "tap", Kind: KindToolResult, Exchange: "2", IsError: true},
		}, want{calls: 2, attempts: 1, status: StatusRunning, sources: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(Options{})
			for _, ev := range tc.events {
				s.Apply(ev)
			}
			snap := s.Snapshot()
			if len(snap.Calls) != tc.want.calls {
				t.Fatalf("calls = %d, want %d", len(snap.Calls), tc.want.calls)
			}
			c := snap.Calls[0]
			got := want{calls: len(snap.Calls), attempts: len(c.Attempts), status: c.Status,
				sent: c.SentCount(), relayed: c.RelayedCount(), wouldR: c.Progress.WouldRelay,
				replayed: c.Flags&FlagReplayed != 0, sources: len(c.Sources)}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMergeOfTwoViews(t *testing.T) {
	s := NewStore(Options{})
	// A tap sees a call with only its exchange (no ids yet), the feed sees the
	// same call by ids; a later tap event carrying both joins them.
	s.Apply(Event{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolProgress, Exchange: "7", Progress: 1})
	s.Apply(feedCall(1, "e1"))
	if n := len(s.Snapshot().Calls); n != 2 {
		t.Fatalf("before the join: %d calls, want 2", n)
	}
	s.Apply(tapCall(2, "7"))
	snap := s.Snapshot()
	if len(snap.Calls) != 1 {
		t.Fatalf("after the join: %d calls, want 1", len(snap.Calls))
	}
	c := snap.Calls[0]
	if c.Progress.Sent != 1 || c.ID != "tap#7" || len(c.Sources) != 2 || c.TaskID != "T1" {
		t.Errorf("merged call = %+v", c)
	}
	// Later events by either key land on the merged call.
	s.Apply(feedResult(9, "e2", 0, false))
	s.Apply(tapResult(9, "7"))
	if snap := s.Snapshot(); len(snap.Calls) != 1 || snap.Calls[0].Status != StatusOK {
		t.Errorf("after result: %d calls, status %s", len(snap.Calls), snap.Calls[0].Status)
	}
}

func TestStatuses(t *testing.T) {
	cases := []struct {
		name string
		ev   Event
		want Status
	}{
		{"ok", Event{Kind: KindToolResult}, StatusOK},
		{"isError", Event{Kind: KindToolResult, IsError: true}, StatusError},
		{"rpc error", Event{Kind: KindToolResult, RPCCode: -32001, HTTPStatus: 401}, StatusError},
		{"late", Event{Kind: KindToolResult, Late: true}, StatusLate},
		{"cancelled", Event{Kind: KindToolCancelled, Reason: "timeout"}, StatusCancelled},
		{"progress keeps running", Event{Kind: KindToolProgress, Progress: 1}, StatusRunning},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(Options{})
			s.Apply(feedCall(0, ""))
			ev := tc.ev
			ev.Time, ev.Source, ev.SourceName, ev.TaskID, ev.ToolCallID = at(5), SourceFeed, "f", "T1", "call_a"
			s.Apply(ev)
			if got := s.Snapshot().Calls[0].Status; got != tc.want {
				t.Errorf("status %s, want %s", got, tc.want)
			}
		})
	}
}

func TestEvictionKeepsRunningCalls(t *testing.T) {
	s := NewStore(Options{MaxFinishedCalls: 3})
	call := func(i int) Event {
		return Event{Time: at(i), Source: SourceFeed, SourceName: "f", Kind: KindToolCall, TaskID: "T", ToolCallID: fmt.Sprint("c", i)}
	}
	result := func(i int) Event {
		return Event{Time: at(i + 100), Source: SourceFeed, SourceName: "f", Kind: KindToolResult, TaskID: "T", ToolCallID: fmt.Sprint("c", i)}
	}
	for i := 0; i < 10; i++ {
		s.Apply(call(i))
	}
	for i := 0; i < 10; i += 2 { // c0, c2, c4, c6, c8 finish in that order
		s.Apply(result(i))
	}
	snap := s.Snapshot()
	var ids []string
	for _, c := range snap.Calls {
		ids = append(ids, c.ToolCallID)
	}
	want := "[c1 c3 c4 c5 c6 c7 c8 c9]"
	if fmt.Sprint(ids) != want {
		t.Errorf("kept %v, want %s", ids, want)
	}
	if snap.Evicted != 2 {
		t.Errorf("evicted %d, want 2", snap.Evicted)
	}
}

func TestSnapshotIsImmutable(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(tapCall(0, "1"))
	s.Apply(tapProgress(10, "1", 1, true))
	before := s.Snapshot()
	c := before.Calls[0]
	s.Apply(tapProgress(20, "1", 2, false))
	s.Apply(tapResult(30, "1"))
	if c.Progress.Progress != 1 || c.Progress.Sent != 1 || c.Status != StatusRunning || c.TimelineLen() != 1 {
		t.Errorf("a held snapshot changed: progress %v sent %d status %s timeline %d",
			c.Progress.Progress, c.Progress.Sent, c.Status, c.TimelineLen())
	}
	after := s.Snapshot()
	if after.Version <= before.Version || after.Calls[0].Status != StatusOK || after.Calls[0].Progress.Sent != 2 {
		t.Errorf("new snapshot misses changes: v%d -> v%d, %+v", before.Version, after.Version, after.Calls[0].Progress)
	}
	if s.Snapshot() != after {
		t.Error("an unchanged store should return the same snapshot")
	}
}

func TestProgressHistoryIsBounded(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(tapCall(0, "1"))
	for i := 1; i <= 10000; i++ {
		s.Apply(tapProgress(i, "1", float64(i), i%5 == 0))
	}
	c := s.Snapshot().Calls[0]
	h := c.Progress.History()
	if len(h) > maxPoints || len(h) < maxPoints/2 {
		t.Fatalf("history holds %d points", len(h))
	}
	if h[0].Progress != 1 {
		t.Errorf("first point %v, want 1", h[0].Progress)
	}
	for i := 1; i < len(h); i++ {
		if h[i].Progress <= h[i-1].Progress {
			t.Fatalf("history out of order at %d", i)
		}
	}
	if c.Progress.Progress != 10000 || c.Progress.Sent != 10000 || c.Progress.WouldRelay != 2000 {
		t.Errorf("progress %+v", c.Progress)
	}
}

func TestSeenSetIsBounded(t *testing.T) {
	s := NewStore(Options{MaxSeenEventIDs: 4})
	for i := 0; i < 10; i++ {
		s.Apply(Event{Time: at(i), Source: SourceFeed, SourceName: "f", Kind: KindEvent, EventType: "x", EventID: fmt.Sprint(i)})
	}
	if len(s.seen.ids) != 4 {
		t.Errorf("seen set holds %d ids, want 4", len(s.seen.ids))
	}
	if s.Apply(Event{Kind: KindEvent, EventID: "9"}) {
		t.Error("a recent id was applied twice")
	}
	if !s.Apply(Event{Kind: KindEvent, EventID: "0"}) {
		t.Error("an id past the window should apply again")
	}
}

func TestSourceStatus(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(Event{Time: at(0), Source: SourceFeed, SourceName: "f", Kind: KindSourceStatus, State: StateConnecting})
	s.Apply(Event{Time: at(1), Source: SourceFeed, SourceName: "f", Kind: KindSourceStatus, State: StateReconnecting, Detail: "EOF"})
	s.Apply(Event{Time: at(2), Source: SourceFeed, SourceName: "f", Kind: KindSourceStatus, State: StateConnected})
	src := s.Snapshot().Sources
	if len(src) != 1 || src[0].State != StateConnected || src[0].Attempts != 1 || src[0].Events != 3 {
		t.Errorf("sources %+v", src)
	}
}

func TestTimeoutIsCancelledNotError(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(tapCall(0, "1"))
	s.Apply(Event{Time: at(10), Source: SourceTap, SourceName: "tap", Kind: KindToolCancelled, TaskID: "T1", ToolCallID: "call_a", Exchange: "1", Reason: "timeout"})
	s.Apply(Event{Time: at(11), Source: SourceFeed, SourceName: "f", Kind: KindToolResult, TaskID: "T1", ToolCallID: "call_a", IsError: true, Error: "MCP tool call timed out: no result within 1 s"})
	if st := s.Snapshot().Calls[0].Status; st != StatusCancelled {
		t.Errorf("status %s, want cancelled", st)
	}
}

func TestTapAttemptsNumberedByWireTime(t *testing.T) {
	// The second request's events are applied before the first one's (a
	// tap parses exchanges side by side): numbers still follow the wire.
	s := NewStore(Options{})
	s.Apply(tapCall(100, "2"))
	s.Apply(tapResult(120, "2"))
	s.Apply(tapCall(0, "1"))
	s.Apply(Event{Time: at(10), Source: SourceTap, SourceName: "tap", Kind: KindToolResult, TaskID: "T1", ToolCallID: "call_a",
		IdempotencyKey: "T1:call_a", Exchange: "1", HTTPStatus: 502})
	c := s.Snapshot().Calls[0]
	if len(c.Attempts) != 2 || c.Attempts[0].Exchange != "1" || c.Attempts[0].N != 1 || c.Attempts[1].Exchange != "2" || c.Attempts[1].N != 2 {
		t.Fatalf("attempts %+v", c.Attempts)
	}
	if c.Status != StatusOK {
		t.Errorf("status %s: the latest attempt (exchange 2) answered ok", c.Status)
	}
}

// TestSeenIDsBounded: the ring forgets the oldest id past its limit (moved
// here from the feed package: feed and store share one set).
func TestSeenIDsBounded(t *testing.T) {
	s := NewSeenIDs(3)
	for _, id := range []string{"a", "b", "c"} {
		if !s.Add(id) {
			t.Fatalf("%s not new", id)
		}
	}
	if s.Add("a") || s.Add("c") {
		t.Fatal("repeat taken as new")
	}
	s.Add("d") // evicts a
	if s.Len() != 3 || !s.Add("a") || s.Add("d") {
		t.Fatalf("ring: %v", s.ids)
	}
}

// Calls of one source share its Sources array: a second source seen on one
// call must not show on another.
func TestSharedSourcesStayApart(t *testing.T) {
	s := NewStore(Options{})
	a, b := tapCall(0, "1"), tapCall(0, "2")
	a.ToolCallID, a.IdempotencyKey = "call_a", ""
	b.ToolCallID, b.IdempotencyKey = "call_b", ""
	s.Apply(a)
	s.Apply(b)
	fc := feedCall(1, "")
	fc.ToolCallID, fc.IdempotencyKey = "call_a", ""
	s.Apply(fc)
	snap := s.Snapshot()
	ca, cb := snap.FindCall("call_a"), snap.FindCall("call_b")
	if ca == nil || cb == nil {
		t.Fatal("calls not found")
	}
	if len(ca.Sources) != 2 || len(cb.Sources) != 1 || cb.Sources[0] != b.SourceName {
		t.Fatalf("sources: a %v, b %v", ca.Sources, cb.Sources)
	}
}
