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
		for i := range e.numKeys() {
			n++
			k := e.keyAt(i)
			if e.hashAt(&s.calls, i) != s.calls.hash(k) {
				t.Errorf("call %s: key %v kept with a wrong hash", e.call.ID, k)
			}
			if s.calls.get(k, s.calls.hash(k)) != e {
				t.Errorf("call %s: key %v names another call", e.call.ID, k)
			}
		}
	}
	for _, sl := range s.calls.byHash {
		if sl.e.dead {
			t.Errorf("key %v names a dead entry", sl.e.keyAt(sl.i))
		}
	}
	if n != s.calls.len() {
		t.Errorf("%d keys on live calls, %d in the index", n, s.calls.len())
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
	if s.calls.len() != 3 {
		t.Fatalf("%d keys in the index, want the last call's 3", s.calls.len())
	}
}

// An entry with its three keys and their hashes fits the 176-byte size
// class (its 24 bytes and a 128-byte keys array were two objects; the
// index's slots are 24 bytes smaller per key than a CallKey map's).
func TestEntryFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 176 {
		t.Errorf("an entry is %d bytes, want at most 176", n)
	}
}

// Two keys of one hash (a 64-bit collision, forced here): each still names
// its own entry, through any order of puts, moves and deletes.
func TestKeyIndexCollision(t *testing.T) {
	x := newKeyIndex()
	mk := func(k CallKey) *entry {
		e := &entry{call: &Call{}}
		e.addKey(k, 7)
		return e
	}
	k1, k2, k3 := CallKey{keyIDs, "T", "1"}, CallKey{keyIDs, "T", "2"}, CallKey{keyIdem, "K", ""}
	e1, e2, e3 := mk(k1), mk(k2), mk(k3)
	x.put(k1, 7, e1, 0)
	x.put(k2, 7, e2, 0)
	if x.get(k1, 7) != e1 || x.get(k2, 7) != e2 || x.get(k3, 7) != nil {
		t.Fatal("colliding keys mixed up")
	}
	x.del(k1, 7) // the slot's own key goes: the clash stays findable
	if x.get(k1, 7) != nil || x.get(k2, 7) != e2 {
		t.Fatal("after deleting the slot's key")
	}
	x.put(k3, 7, e3, 0) // takes the free slot
	// k2 moves to e3 (a merge): the slot is k3's, so k2 stays a clash.
	x.put(k2, 7, e3, e3.addKey(k2, 7))
	if x.get(k2, 7) != e3 || x.get(k3, 7) != e3 {
		t.Fatal("after a move")
	}
	x.del(k3, 7)
	x.del(k2, 7)
	if x.len() != 0 || x.get(k2, 7) != nil || x.get(k3, 7) != nil {
		t.Fatalf("%d keys left", x.len())
	}
	// A clash whose slot was freed, then put again, must not linger.
	x.put(k1, 7, e1, 0)
	x.put(k2, 7, e2, 0)
	x.del(k1, 7)
	x.put(k2, 7, e3, 1) // e3's key 1 is k2
	x.del(k2, 7)
	if x.len() != 0 || x.get(k2, 7) != nil {
		t.Fatalf("a stale clash: %d keys left", x.len())
	}
}
