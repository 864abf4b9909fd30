package model

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// runningCall is a feed tool.call that never gets a result.
func runningCall(i int, when time.Time) Event {
	return Event{Time: when, Source: SourceFeed, SourceName: "task-1", Kind: KindToolCall,
		TaskID: "T1", ToolCallID: fmt.Sprintf("call_%d", i), Tool: "mcp__srv__work", EventID: fmt.Sprintf("e%d", i),
		Arguments: []byte(`{"q":"` + strings.Repeat("a", 200) + `"}`)}
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
