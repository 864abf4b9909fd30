package model

import (
	"fmt"
	"time"
)

// Running calls are bounded too: a call whose result never comes (a feed
// that stops, a tap stream that ended without one, a recording cut short)
// would otherwise stay in memory for good, whatever MaxFinishedCalls says.
// The store ends such a call itself, with a tool.cancelled and a
// call_abandoned warning, after which it is a finished call like any other
// (kept on screen, evicted oldest first). It does so when:
//   - more than MaxRunningCalls are running (the oldest first);
//   - a call with a timeout has had no result for twice it (a tap stops
//     matching a result to it then too);
//   - a call has had no event for IdleRunningCalls.
// Time is the events' own: the latest call event time applied, so a replay
// ends calls as the recording's clock moves.

const (
	// DefaultMaxRunningCalls bounds running calls.
	DefaultMaxRunningCalls = 5000
	// defaultIdleRunningCalls ends a running call that has had no event
	// for this long (twice the longest timeout the contract allows).
	defaultIdleRunningCalls = time.Hour
	// staleSweepEvery: stale calls are looked for once per this many events.
	staleSweepEvery = 1024
	// maxNotes bounds the store's own events not yet taken by the hub.
	maxNotes = 1024
)

// running is how many live calls have not finished.
func (s *Store) running() int { return len(s.order) - s.dead - s.nFin }

// queueRunning puts a running entry in the running queue (oldest first).
func (s *Store) queueRunning(e *entry) {
	if !e.runQueued {
		e.runQueued = true
		s.runQueue = append(s.runQueue, e)
	}
}

// boundRunning ends the calls past the running limit, and every
// staleSweepEvery call events the stale ones. now is the call event's time
// (never ahead of the wall clock: a feed's future timestamp must not end
// every call).
func (s *Store) boundRunning(now time.Time) {
	if wall := time.Now(); now.After(wall) {
		now = wall
	}
	if now.After(s.clock) {
		s.clock = now
	}
	for s.running() > s.opts.MaxRunningCalls && s.runHead < len(s.runQueue) {
		e := s.runQueue[s.runHead]
		s.runQueue[s.runHead] = nil
		s.runHead++
		e.runQueued = false
		if !e.dead && !e.finished {
			s.abandon(e, fmt.Sprintf("more than %d calls running (--max-running-calls): the oldest is ended", s.opts.MaxRunningCalls))
		}
	}
	if s.sinceSweep++; s.sinceSweep >= staleSweepEvery {
		s.sinceSweep = 0
		s.sweepStale()
	}
}

// sweepStale ends stale running calls and compacts the running queue.
func (s *Store) sweepStale() {
	live := s.runQueue[:0:0]
	for _, e := range s.runQueue[s.runHead:] {
		if e == nil || e.dead || e.finished {
			if e != nil {
				e.runQueued = false
			}
			continue
		}
		if reason := s.staleReason(e.call); reason != "" {
			e.runQueued = false
			s.abandon(e, reason)
			continue
		}
		live = append(live, e)
	}
	s.runQueue, s.runHead = live, 0
}

func (s *Store) staleReason(c *Call) string {
	if t := time.Duration(c.TimeoutMS) * time.Millisecond; t > 0 && c.TimedElapsed(s.clock) > 2*t {
		return fmt.Sprintf("no result within twice its %s timeout: ended by toolscope", t)
	}
	if idle := s.clock.Sub(c.LastUpdate); !c.LastUpdate.IsZero() && idle > s.opts.IdleRunningCalls {
		return fmt.Sprintf("no event for %s: ended by toolscope", idle.Round(time.Second))
	}
	return ""
}

// abandon ends a running call: a tool.cancelled and a call_abandoned
// warning are applied to it, and noted for the hub to write.
func (s *Store) abandon(e *entry, reason string) {
	c := s.mutable(e)
	source, name := SourceTap, ""
	if c.SeenByFeed {
		source = SourceFeed
	}
	if len(c.Sources) > 0 {
		name = c.Sources[0]
	}
	at := s.clock
	if at.Before(c.LastUpdate) {
		at = c.LastUpdate
	}
	base := Event{Time: at, Source: source, SourceName: name, TaskID: c.TaskID, ToolCallID: c.ToolCallID,
		Tool: c.Tool, IdempotencyKey: c.IdempotencyKey, RequestID: c.RequestID, Call: c.ID}
	cancel := base
	cancel.Kind, cancel.Reason = KindToolCancelled, reason
	warn := base
	warn.Kind, warn.Code, warn.Message = KindWarning, string(WarnCallAbandoned), "call "+c.ID+": "+reason
	c.apply(&cancel)
	c.apply(&warn)
	s.warnings++
	s.version++
	s.note(cancel)
	s.note(warn)
	e.finished = c.Finished()
	if e.finished {
		s.nFin++
		if !e.queued {
			e.queued = true
			s.finished = append(s.finished, e)
		}
		s.evict()
	}
}

// note keeps an event the store made itself for TakeNotes (the oldest
// dropped when nobody takes them).
func (s *Store) note(ev Event) {
	if len(s.notes) >= maxNotes {
		s.notes = append(s.notes[:0], s.notes[maxNotes/2:]...)
	}
	s.notes = append(s.notes, ev)
}

// TakeNotes returns, and forgets, the events the store made itself since
// the last call (calls it ended), already applied, for writers to record.
func (s *Store) TakeNotes() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}
