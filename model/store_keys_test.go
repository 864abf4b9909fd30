package model

import (
	"testing"
	"unsafe"
)

// checkKeys asserts the store's key invariant: every key of a live entry
// maps to it, and every key in the map belongs to the live entry it names.
func checkKeys(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.order {
		if e.dead {
			continue
		}
		e.eachKey(func(k CallKey) {
			n++
			if s.calls[k] != e {
				t.Errorf("call %s: key %v maps elsewhere", e.call.ID, k)
			}
		})
	}
	for k, e := range s.calls {
		if e.dead || !e.hasKey(k) {
			t.Errorf("key %v names a dead entry or one without it", k)
		}
	}
	if n != len(s.calls) {
		t.Errorf("%d keys on live calls, %d in the map", n, len(s.calls))
	}
}

// A call merged from two holds more keys than its entry's three: they all
// keep naming it, and all go once it is evicted.
func TestMergedCallKeys(t *testing.T) {
	s := NewStore(Options{MaxFinishedCalls: 1})
	// One tap's exchange with an idempotency key, another tap's exchange
	// with the ids: two calls, until an event carries both.
	a := Event{Time: at(0), Source: SourceTap, SourceName: "tap-a", Kind: KindToolCall, Exchange: "1", IdempotencyKey: "K", Tool: "read"}
	b := Event{Time: at(1), Source: SourceTap, SourceName: "tap-b", Kind: KindToolCall, Exchange: "9", TaskID: "T1", ToolCallID: "c1", Tool: "read"}
	s.Apply(a)
	s.Apply(b)
	checkKeys(t, s)
	if got := len(s.Snapshot().Calls); got != 2 {
		t.Fatalf("%d calls before the join, want 2", got)
	}
	j := Event{Time: at(2), Source: SourceFeed, SourceName: "task-1", Kind: KindToolCall, TaskID: "T1", ToolCallID: "c1", IdempotencyKey: "K"}
	s.Apply(j)
	checkKeys(t, s)
	snap := s.Snapshot()
	if len(snap.Calls) != 1 {
		t.Fatalf("%d calls after the join, want 1", len(snap.Calls))
	}
	r := Event{Time: at(3), Source: SourceTap, SourceName: "tap-a", Kind: KindToolResult, Exchange: "1", IdempotencyKey: "K", HTTPStatus: 200}
	s.Apply(r)
	checkKeys(t, s)
	// A second finished call evicts the first: none of its four keys stay.
	s.Apply(tapCall(10, "x"))
	s.Apply(tapResult(20, "x"))
	checkKeys(t, s)
	if snap := s.Snapshot(); len(snap.Calls) != 1 || snap.Evicted != 1 {
		t.Fatalf("%d calls, %d evicted", len(snap.Calls), snap.Evicted)
	}
	if len(s.calls) != 3 {
		t.Fatalf("%d keys in the map, want the last call's 3", len(s.calls))
	}
}

// An entry with its three keys fits the 144-byte size class (its 24 bytes
// and a 128-byte keys array were two objects).
func TestEntryFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 144 {
		t.Errorf("an entry is %d bytes, want at most 144", n)
	}
}
