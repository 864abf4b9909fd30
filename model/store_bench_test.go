package model

import (
	"strconv"
	"testing"
)

// BenchmarkApplyTapCall applies what a tap reports of one tools/call: its
// tool.call and its tool.result, a new call each time (the store keeps the
// default 10,000 finished calls, so it evicts once full).
func BenchmarkApplyTapCall(b *testing.B) {
	s := NewStore(Options{})
	ids := make([]string, 1<<14)
	for i := range ids {
		ids[i] = "call_" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := ids[i&(len(ids)-1)]
		call := tapCall(0, strconv.Itoa(i))
		call.ToolCallID, call.IdempotencyKey = id, ""
		s.ApplyTakingNotes(&call)
		r := tapResult(30, call.Exchange)
		r.ToolCallID, r.IdempotencyKey = id, ""
		s.ApplyTakingNotes(&r)
	}
}
