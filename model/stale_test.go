package model

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// runningCall is a feed tool.call that never gets a result.
func runningCall(i int, when time.Time) Event {
	return Event{Time: when, Source: SourceFeed, SourceName: "task-1", Kind: KindToolCall,
		TaskID: "T1", ToolCallID: fmt.Sprintf("call_%d", i), Tool: "mcp__srv__work", EventID: fmt.Sprintf("e%d", i),
		Arguments: []byte(`{"q":"` + strings.Repeat("a", 200) + `"}`)}
}

// TestRunningCallsCapped: calls that never finish are bounded too (the
// issue: 50,000 running feed calls took ~440 MiB, kept whatever --max-calls
// said; here 4,000 against limits of 200). Past MaxRunningCalls the oldest is ended with a warning, becomes a
// finished call, and is evicted with the finished ones; the hub records
// why.
func TestRunningCallsCapped(t *testing.T) {
	const n, running, finished = 4000, 200, 200
	out := &codeCounter{code: []byte(`"code":"call_abandoned"`)}
	s := NewStore(Options{MaxRunningCalls: running, MaxFinishedCalls: finished})
	hub := NewHub(s, NewWriter("out", out, FormatJSON, true, nil))
	base := liveHeap()
	for i := range n {
		hub.Emit(runningCall(i, at(i)))
	}
	after := liveHeap()
	snap := s.Snapshot()
	live := 0
	for _, c := range snap.Calls {
		if c.Status == StatusRunning {
			live++
		}
	}
	if live != running || len(snap.Calls) != running+finished {
		t.Fatalf("%d calls, %d running; want %d running of %d", len(snap.Calls), live, running, running+finished)
	}
	if newest := snap.Calls[len(snap.Calls)-1]; newest.ToolCallID != fmt.Sprintf("call_%d", n-1) || newest.Status != StatusRunning {
		t.Fatalf("newest call %s %s", newest.ToolCallID, newest.Status)
	}
	oldestKept := snap.Calls[0]
	if oldestKept.Status != StatusCancelled || len(oldestKept.Warnings) != 1 || oldestKept.Warnings[0].Code != "call_abandoned" ||
		!strings.Contains(oldestKept.Attempts[0].Cancelled, "--max-running-calls") {
		t.Fatalf("oldest kept call %s: %+v %+v", oldestKept.Status, oldestKept.Warnings, oldestKept.Attempts)
	}
	hub.Close()
	if got := out.n; got != n-running {
		t.Fatalf("%d call_abandoned lines written, want %d", got, n-running)
	}
	// Per call kept: a few KiB (about 12 KiB measured, snapshot copies
	// included), so the defaults (5,000 running, 10,000 finished) stay
	// near 200 MiB whatever arrives.
	grew := after - min(base, after)
	t.Logf("heap %d KiB for %d calls kept of %d", grew>>10, len(snap.Calls), n)
	if per := grew / uint64(len(snap.Calls)); per > 20<<10 {
		t.Fatalf("%d bytes per call kept", per)
	}
	runtime.KeepAlive(s)
}

// TestStaleCallsEnded: a running call past twice its timeout (a tap call
// whose stream ended without a result) or idle for IdleRunningCalls is
// ended and then evicted like any finished call, on the events' clock.
func TestStaleCallsEnded(t *testing.T) {
	s := NewStore(Options{MaxFinishedCalls: 100, IdleRunningCalls: time.Hour})
	for i := range 300 {
		ev := tapCall(0, fmt.Sprint(i))
		ev.IdempotencyKey, ev.ToolCallID, ev.TimeoutMS = "", fmt.Sprintf("tap_%d", i), 1000
		s.Apply(ev)
	}
	for i := range 300 {
		s.Apply(runningCall(i, at(0))) // no timeout: only idleness ends them
	}
	// Time moves on: 3 s later, then 2 h later, with fresh calls arriving.
	for i := range staleSweepEvery {
		s.Apply(runningCall(1000+i, at(3000)))
	}
	notes := s.TakeNotes()
	snap := s.Snapshot()
	tapRunning, feedRunning := 0, 0
	for _, c := range snap.Calls {
		if c.Status == StatusRunning && strings.HasPrefix(c.ToolCallID, "tap_") {
			tapRunning++
		}
		var k int
		if _, err := fmt.Sscanf(c.ToolCallID, "call_%d", &k); err == nil && k < 300 && c.Status == StatusRunning {
			feedRunning++
		}
	}
	if tapRunning != 0 || feedRunning != 300 {
		t.Fatalf("after 3 s: %d tap calls and %d feed calls running, want 0 and 300", tapRunning, feedRunning)
	}
	if snap.Evicted < 200 {
		t.Fatalf("%d evicted, want the ended tap calls evicted past --max-calls", snap.Evicted)
	}
	for i := range staleSweepEvery {
		s.Apply(runningCall(5000+i, at(2*3600*1000)))
	}
	snap = s.Snapshot()
	for _, c := range snap.Calls {
		var k int
		fmt.Sscanf(c.ToolCallID, "call_%d", &k)
		if c.Status == StatusRunning && k < 5000 {
			t.Fatalf("call %s still running two idle hours later", c.ToolCallID)
		}
	}
	var reasons []string
	for _, e := range append(notes, s.TakeNotes()...) {
		if e.Kind == KindWarning {
			reasons = append(reasons, e.Message)
		}
	}
	joined := strings.Join(reasons, "\n")
	if !strings.Contains(joined, "no result within twice its 1s timeout") || !strings.Contains(joined, "no event for 1h59m57s: ended by toolscope") {
		t.Fatalf("reasons:\n%.600s", joined)
	}
}

// codeCounter counts the lines written that hold code, keeping none.
type codeCounter struct {
	code []byte
	n    int
}

func (c *codeCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, c.code)
	return len(p), nil
}
