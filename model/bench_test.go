package model

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkApplyProgress applies a progress event to an existing call: the
// hot path of a busy feed or tap. Target: >= 2,000,000/s, 0 allocs.
func BenchmarkApplyProgress(b *testing.B) {
	s := NewStore(Options{})
	s.Apply(tapCall(0, "1"))
	ev := tapProgress(1, "1", 1, true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev.Progress = float64(i)
		ev.Time = t0.Add(time.Duration(i))
		s.Apply(ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "applies/s")
}

// BenchmarkApplyFeedProgress is the same with a feed's event ids, which go
// through the de-duplication set.
func BenchmarkApplyFeedProgress(b *testing.B) {
	s := NewStore(Options{})
	s.Apply(feedCall(0, "e0"))
	ids := make([]string, 1<<18) // more than the seen window: none is a duplicate
	for i := range ids {
		ids[i] = fmt.Sprintf("5b0c%08d", i)
	}
	ev := feedProgress(1, "", 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev.EventID = ids[i&(len(ids)-1)]
		ev.Progress = float64(i)
		s.Apply(ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "applies/s")
}

// BenchmarkApplyLifecycle applies a whole call: call, 20 progress, result,
// from a tap and a feed.
func BenchmarkApplyLifecycle(b *testing.B) {
	s := NewStore(Options{MaxFinishedCalls: 1000})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprint("c", i)
		call := tapCall(0, id)
		call.ToolCallID, call.IdempotencyKey = id, "T1:"+id
		s.Apply(call)
		fc := feedCall(1, "")
		fc.ToolCallID = id
		s.Apply(fc)
		for p := 1; p <= 20; p++ {
			ev := tapProgress(p, id, float64(p), p%4 == 0)
			ev.ToolCallID, ev.IdempotencyKey = id, "T1:"+id
			s.Apply(ev)
		}
		r := tapResult(30, id)
		r.ToolCallID, r.IdempotencyKey = id, "T1:"+id
		s.Apply(r)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkSnapshot10k takes a snapshot of 10,000 calls after one changed.
// Target: under 1 ms.
func BenchmarkSnapshot10k(b *testing.B) {
	s := NewStore(Options{MaxFinishedCalls: 20000})
	for i := 0; i < 10000; i++ {
		id := fmt.Sprint("c", i)
		s.Apply(Event{Time: at(i), Source: SourceFeed, SourceName: "f", Kind: KindToolCall, TaskID: "T", ToolCallID: id})
		s.Apply(Event{Time: at(i), Source: SourceFeed, SourceName: "f", Kind: KindToolProgress, TaskID: "T", ToolCallID: id, Progress: 1})
	}
	ev := Event{Source: SourceFeed, SourceName: "f", Kind: KindToolProgress, TaskID: "T", ToolCallID: "c5000"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev.Progress = float64(i)
		s.Apply(ev)
		if snap := s.Snapshot(); len(snap.Calls) != 10000 {
			b.Fatal(len(snap.Calls))
		}
	}
}
