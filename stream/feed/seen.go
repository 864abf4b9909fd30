package feed

// seenIDs remembers the most recent event ids, up to a limit, in a ring: a
// reconnect replays the recent past, and memory stays bounded on a feed that
// runs for days.
type seenIDs struct {
	ids  map[string]struct{}
	ring []string
	next int
}

func newSeenIDs(limit int) *seenIDs {
	return &seenIDs{ids: make(map[string]struct{}, min(limit, 1024)), ring: make([]string, limit)}
}

// add records id and says whether it was new.
func (s *seenIDs) add(id string) bool {
	if _, ok := s.ids[id]; ok {
		return false
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.ids, old)
	}
	s.ring[s.next] = id
	s.ids[id] = struct{}{}
	s.next = (s.next + 1) % len(s.ring)
	return true
}
