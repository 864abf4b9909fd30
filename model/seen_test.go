package model

import (
	"runtime"
	"strconv"
	"testing"
)

// TestSeenIDsGrowWithWhatTheyHold: a set whose limit is 131,072 ids takes
// memory as ids come, not its limit's megabyte at once, and once full
// never grows past its limit while it forgets the oldest.
func TestSeenIDsGrowWithWhatTheyHold(t *testing.T) {
	const limit = 1 << 17
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sets := make([]*SeenIDs, 100)
	for i := range sets {
		sets[i] = NewSeenIDs(limit)
		for j := range 110 { // a task's events
			sets[i].Add(strconv.Itoa(j))
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / uint64(len(sets)); per > 16<<10 {
		t.Errorf("%d bytes allocated a set of 110 ids, want a few KiB", per)
	}
	if c := cap(sets[0].ring); c > 128 {
		t.Errorf("ring capacity %d for 110 ids", c)
	}

	s := NewSeenIDs(limit)
	for j := range limit + 10 {
		s.Add(strconv.Itoa(j))
	}
	if len(s.ring) != limit || cap(s.ring) != limit || s.Len() != limit {
		t.Fatalf("full set: ring %d (cap %d), %d ids; want %d", len(s.ring), cap(s.ring), s.Len(), limit)
	}
	for j := range 10 {
		if s.Has(strconv.Itoa(j)) {
			t.Fatalf("id %d, among the oldest, is still remembered", j)
		}
	}
	if !s.Has(strconv.Itoa(limit+9)) || !s.Has("10") {
		t.Fatal("recent ids forgotten")
	}
}
