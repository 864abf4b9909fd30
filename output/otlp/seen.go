package otlp

// seenIDs remembers the latest feed event ids in a ring, so an event a feed
// delivers twice (a reconnect replays the recent past) counts once even when
// the exporter is wired ahead of the store's own de-duplication.
type seenIDs struct {
	ids  map[string]struct{}
	ring []string
	next int
}

const maxSeenIDs = 16384

// firstTime records id and says whether it is new.
func (s *seenIDs) firstTime(id string) bool {
	if s.ids == nil {
		s.ids = make(map[string]struct{}, 1024)
		s.ring = make([]string, maxSeenIDs)
	}
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
