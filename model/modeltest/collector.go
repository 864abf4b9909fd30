package modeltest

import (
	"sync"

	"toolscope/model"
)

// Collector is a model.Sink that keeps every event emitted into it, in
// order, and passes each on to Next (when set: a hub applying it to a store,
// as cli wires sources). Safe for concurrent use.
type Collector struct {
	Next model.Sink

	mu  sync.Mutex
	evs []model.Event
}

// Emit keeps e and passes it on.
func (c *Collector) Emit(e model.Event) {
	c.mu.Lock()
	c.evs = append(c.evs, e)
	c.mu.Unlock()
	if c.Next != nil {
		c.Next.Emit(e)
	}
}

// Events is a copy of every event emitted so far.
func (c *Collector) Events() []model.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]model.Event(nil), c.evs...)
}

// AllEvents lists every event a snapshot kept: each call's timeline and
// warnings, then the events of no call.
func AllEvents(s *model.Snapshot) []model.Event {
	var out []model.Event
	for _, c := range s.Calls {
		out = append(out, c.Timeline()...)
		out = append(out, c.Warnings...)
	}
	return append(out, s.Other...)
}
