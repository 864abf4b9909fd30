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
type SeenIDs struct {
	seed maphash.Seed
	ids  map[uint64]struct{}
	ring []uint64
	n    int // ring slots in use
	next int
}

// NewSeenIDs remembers up to limit ids (at least 1).
func NewSeenIDs(limit int) *SeenIDs {
	limit = max(limit, 1)
	return &SeenIDs{seed: maphash.MakeSeed(), ids: make(map[uint64]struct{}, min(limit, 4096)), ring: make([]uint64, limit)}
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
	if s.n == len(s.ring) {
		delete(s.ids, s.ring[s.next])
	} else {
		s.n++
	}
	s.ring[s.next] = k
	s.ids[k] = struct{}{}
	s.next = (s.next + 1) % len(s.ring)
	return true
}

// Len is how many ids are remembered.
func (s *SeenIDs) Len() int { return len(s.ids) }
