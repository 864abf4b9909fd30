package model

import "hash/maphash"

// SeenIDs remembers the most recent event ids, up to a limit, in a ring:
// de-duplication needs recent ids (a reconnect replays the recent past), and
// memory must stay bounded on a feed that runs for days. It keeps a 64-bit
// hash of each id, not the id: a hostile feed's megabyte-long ids cost 8
// bytes each. The hash is seeded per process (maphash), so ids cannot be
// crafted to collide; by chance, two of 200,000 remembered ids collide about
// once in 10^9 runs (an event then shown as a duplicate). Not safe for
// concurrent use.
//
// Memory grows with the ids held, up to the limit, never reserved ahead:
// a monitor watching 500 feeds of a hundred events each holds a few KiB a
// feed, not the limit's megabyte (which put 500 feeds over the heap's soft
// limit, and the collector to work half the time).
type SeenIDs struct {
	seed  maphash.Seed
	limit int
	ids   map[uint64]struct{}
	ring  []uint64 // appended to until limit long, then reused oldest first
	next  int      // the oldest, once the ring is full
}

// NewSeenIDs remembers up to limit ids (at least 1).
func NewSeenIDs(limit int) *SeenIDs {
	return &SeenIDs{seed: maphash.MakeSeed(), limit: max(limit, 1), ids: make(map[uint64]struct{})}
}

func (s *SeenIDs) key(id string) uint64 { return maphash.String(s.seed, id) }

// Has says whether id is remembered.
func (s *SeenIDs) Has(id string) bool {
	_, ok := s.ids[s.key(id)]
	return ok
}

// Add remembers id, forgetting the oldest past the limit, and says whether
// it was new.
func (s *SeenIDs) Add(id string) bool {
	k := s.key(id)
	if _, ok := s.ids[k]; ok {
		return false
	}
	switch {
	case len(s.ring) < s.limit:
		if len(s.ring) == cap(s.ring) { // doubling, but never past the limit
			grown := make([]uint64, len(s.ring), min(max(2*cap(s.ring), 64), s.limit))
			copy(grown, s.ring)
			s.ring = grown
		}
		s.ring = append(s.ring, k)
	default:
		delete(s.ids, s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % s.limit
	}
	s.ids[k] = struct{}{}
	return true
}

// Len is how many ids are remembered.
func (s *SeenIDs) Len() int { return len(s.ids) }
