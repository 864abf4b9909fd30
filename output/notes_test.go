package output

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// Moved from model/stale_test.go with the hub: the store ends calls to stay
// bounded and the hub writes why.

var liveHeap = modeltest.LiveHeap

// runningCall is a feed tool.call that never gets a result.
func runningCall(i int, when time.Time) model.Event {
	return model.Event{Time: when, Source: model.SourceFeed, SourceName: "task-1", Kind: model.KindToolCall,
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
	s := model.NewStore(model.Options{MaxRunningCalls: running, MaxFinishedCalls: finished})
	hub := NewHub(s, NewWriter(out, WriterConfig{Name: "out"}))
	base := liveHeap()
	for i := range n {
		hub.Emit(runningCall(i, at(i)))
	}
	hub.Flush() // what the writer still holds is not the store's
	after := liveHeap()
	snap := s.Snapshot()
	live := 0
	for _, c := range snap.Calls {
		if c.Status == model.StatusRunning {
			live++
		}
	}
	if live != running || len(snap.Calls) != running+finished {
		t.Fatalf("%d calls, %d running; want %d running of %d", len(snap.Calls), live, running, running+finished)
	}
	if newest := snap.Calls[len(snap.Calls)-1]; newest.ToolCallID != fmt.Sprintf("call_%d", n-1) || newest.Status != model.StatusRunning {
		t.Fatalf("newest call %s %s", newest.ToolCallID, newest.Status)
	}
	oldestKept := snap.Calls[0]
	if oldestKept.Status != model.StatusCancelled || len(oldestKept.Warnings) != 1 || oldestKept.Warnings[0].Code != "call_abandoned" ||
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

// codeCounter counts the lines written that hold code, keeping none.
type codeCounter struct {
	code []byte
	n    int
}

func (c *codeCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, c.code)
	return len(p), nil
}

var t0 = time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
