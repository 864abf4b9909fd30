//go:build !race

package model

import (
	"strconv"
	"testing"
	"unsafe"
)

// A tap's tool.call and tool.result make a call in the store with a few
// allocations: the call, its entry (with the keys) and id, an attempt, a
// timeline and the store's own copy of the context (the test's context is
// one more) (11 before insertion in order and keys grown at once, 9 before
// calls of one source shared their Sources, 8 before the keys moved into
// the entry, 7 before the store kept a context of its own: a tap's sits
// in its judgment of the whole request, body included).
func TestApplyTapCallAllocations(t *testing.T) {
	s := NewStore(Options{})
	i := 0
	n := testing.AllocsPerRun(200, func() {
		i++
		exchange := strconv.Itoa(i)
		call := tapCall(0, exchange)
		call.ToolCallID, call.IdempotencyKey = "call_"+exchange, ""
		s.ApplyTakingNotes(&call)
		r := tapResult(30, exchange)
		r.ToolCallID, r.IdempotencyKey = call.ToolCallID, ""
		s.ApplyTakingNotes(&r)
	})
	if n > 8 {
		t.Errorf("%.1f allocations per tap call applied, want at most 8", n)
	}
	for _, ev := range []Event{tapProgress(40, "1", 1, true), tapProgress(41, "1", 2, true)} {
		if a := testing.AllocsPerRun(10, func() { s.Apply(ev) }); a != 0 {
			t.Errorf("a progress event on a call with its history made: %.0f allocations, want 0", a)
		}
	}
}

// A Call is made per tool call and the store retains thousands: it must fit
// the 576-byte size class with the 8-byte header the runtime adds to an
// object over 512 bytes that holds pointers.
func TestCallFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Call{}); n > 568 {
		t.Errorf("a Call is %d bytes, want at most 568 (the 576-byte size class)", n)
	}
}
