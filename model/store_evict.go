package model

// Keeping the store bounded (finished calls past the limit are evicted,
// oldest first) and joining two records found to be one call.

// evict drops the oldest finished calls past the limit; a running call is
// never evicted.
func (s *Store) evict() {
	for s.nFin > s.opts.MaxFinishedCalls && s.finHead < len(s.finished) {
		e := s.finished[s.finHead]
		s.finished[s.finHead] = nil
		s.finHead++
		e.queued = false
		if e.dead || !e.finished {
			continue // merged away, or running again: re-queued when it ends
		}
		s.dropLive(e)
		s.nFin--
		s.evicted++
	}
	if s.finHead > 1024 && s.finHead*2 > len(s.finished) {
		s.finished = append([]*entry(nil), s.finished[s.finHead:]...)
		s.finHead = 0
	}
}

// drop removes an entry's keys and marks it dead; order is compacted lazily.
// A call merged away has its keys mapped to the survivor: only those still
// its own go.
func (s *Store) drop(e *entry) {
	for i := range e.numKeys() {
		k, h := e.keyAt(i), e.hashAt(&s.calls, i)
		if s.calls.get(k, h) == e {
			s.calls.del(k, h)
		}
	}
	s.markDead(e)
}

// dropLive is drop for a live entry, whose keys all name it (see
// store_keys.go): no lookup before each delete.
func (s *Store) dropLive(e *entry) {
	for i := range e.numKeys() {
		s.calls.del(e.keyAt(i), e.hashAt(&s.calls, i))
	}
	s.markDead(e)
}

// markDead lets go of the entry's call at once: the entry stays in order
// until order is compacted (up to as many dead entries as live ones), and a
// call it still held would be kept that long.
func (s *Store) markDead(e *entry) {
	e.dead = true
	e.call = nil
	s.dead++
	if s.dead > 64 && s.dead*2 > len(s.order) {
		live := make([]*entry, 0, len(s.order)-s.dead)
		for _, o := range s.order {
			if !o.dead {
				live = append(live, o)
			}
		}
		s.order = live
		s.dead = 0
	}
}

// merge folds the later-seen call into the earlier one: both were views of
// the same call that a later event joined.
func (s *Store) merge(a, b *entry) *entry {
	if b.call.FirstSeen.Before(a.call.FirstSeen) {
		a, b = b, a
	}
	into := s.mutable(a)
	into.absorb(b.call)
	for i := range b.numKeys() {
		k, h := b.keyAt(i), b.hashAt(&s.calls, i)
		s.calls.put(k, h, a, a.addKey(k, h))
	}
	if a.finished {
		s.nFin--
	}
	if b.finished {
		s.nFin--
	}
	b.finished = false
	a.finished = into.Finished()
	if a.finished {
		s.nFin++
		if !a.queued {
			a.queued = true
			s.finished = append(s.finished, a)
		}
	}
	s.drop(b)
	return a
}
