package model

// seenSet remembers the most recent event ids, up to a limit, in a ring:
// de-duplication needs recent ids (a reconnect replays the recent past), and
// memory must stay bounded on a feed that runs for days.
type seenSet struct {
	ids  map[string]struct{}
	ring []string
	next int
}

func newSeenSet(limit int) seenSet {
	return seenSet{ids: make(map[string]struct{}, min(limit, 4096)), ring: make([]string, limit)}
}

func (s *seenSet) has(id string) bool {
	_, ok := s.ids[id]
	return ok
}

func (s *seenSet) add(id string) {
	if old := s.ring[s.next]; old != "" {
		delete(s.ids, old)
	}
	s.ring[s.next] = id
	s.ids[id] = struct{}{}
	s.next = (s.next + 1) % len(s.ring)
}
