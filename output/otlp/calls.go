package otlp

import (
	"container/list"
	"time"

	"go.opentelemetry.io/otel/trace"

	"toolscope/model"
)

// callState is what the exporter keeps of one call: its keys and attempts.
// It stays after its attempts are exported, so a retry is numbered on.
type callState struct {
	keys     []model.CallKey
	attempts []*attemptState // by number
	seen     time.Time       // wall clock of the last event (idleness)
	elem     *list.Element   // in the table's recency list
	// last is the span of the latest exported attempt: the next attempt
	// links to it.
	last trace.SpanContext
}

// callTable holds at most max calls, the least recently seen let go first.
type callTable struct {
	max    int
	byKey  map[model.CallKey]*callState
	recent *list.List // front: most recently seen
}

func newCallTable(max int) *callTable {
	return &callTable{max: max, byKey: make(map[model.CallKey]*callState), recent: list.New()}
}

// apply folds one call event in and returns the attempts that are now ready
// to be scheduled: the one the event ended, and those of calls let go.
func (t *callTable) apply(ev *model.Event, now time.Time) []*attemptState {
	var buf [3]model.CallKey
	keys := model.EventKeys(ev, &buf)
	if len(keys) == 0 {
		return nil
	}
	var c *callState
	for _, k := range keys {
		if o := t.byKey[k]; o != nil && o != c {
			if c == nil {
				c = o
			} else {
				t.merge(c, o)
			}
		}
	}
	var out []*attemptState
	if c == nil && ev.Kind == model.KindWarning {
		return nil // about an exchange that is no call (tools/list...), or a call let go of
	}
	if c == nil {
		c = &callState{}
		c.elem = t.recent.PushFront(c)
		out = t.evictOver()
	} else {
		t.recent.MoveToFront(c.elem)
	}
	c.seen = now
	for _, k := range keys {
		if t.byKey[k] == nil {
			t.byKey[k] = c
			c.keys = append(c.keys, k)
		}
	}
	a := c.attemptFor(ev)
	if a == nil || a.sealed {
		return out // its span is made: a view that came too late
	}
	wasEnded := !a.ended.IsZero()
	a.apply(ev)
	if !wasEnded && !a.ended.IsZero() {
		out = append(out, a)
	}
	return out
}

// merge folds call o into c: a later event showed both are one call.
func (t *callTable) merge(c, o *callState) {
	for _, k := range o.keys {
		t.byKey[k] = c
		c.keys = append(c.keys, k)
	}
	for _, a := range o.attempts {
		if len(c.attempts) < model.MaxAttempts {
			c.insert(a)
		}
	}
	t.recent.Remove(o.elem)
}

// evictOver lets go of the least recently seen calls past the bound.
func (t *callTable) evictOver() []*attemptState {
	var out []*attemptState
	for t.recent.Len() > t.max {
		out = append(out, t.drop(t.recent.Back().Value.(*callState))...)
	}
	return out
}

// idle lets go of calls that saw no event for maxIdle.
func (t *callTable) idle(now time.Time, maxIdle time.Duration) []*attemptState {
	var out []*attemptState
	for el := t.recent.Back(); el != nil; el = t.recent.Back() {
		c := el.Value.(*callState)
		if now.Sub(c.seen) < maxIdle {
			break
		}
		out = append(out, t.drop(c)...)
	}
	return out
}

// drop forgets a call; its attempts still waiting for a result are
// returned, marked unfinished.
func (t *callTable) drop(c *callState) []*attemptState {
	for _, k := range c.keys {
		if t.byKey[k] == c {
			delete(t.byKey, k)
		}
	}
	t.recent.Remove(c.elem)
	var out []*attemptState
	for _, a := range c.attempts {
		if a.ended.IsZero() && !a.queued {
			a.markUnfinished()
			out = append(out, a)
		}
	}
	return out
}

// all is every attempt not yet scheduled (Close exports them).
func (t *callTable) all() []*attemptState {
	var out []*attemptState
	for el := t.recent.Front(); el != nil; el = el.Next() {
		for _, a := range el.Value.(*callState).attempts {
			if !a.queued {
				out = append(out, a)
			}
		}
	}
	return out
}

// attemptFor finds or makes the attempt an event belongs to, as the store
// numbers them: a tap's exchange is one attempt, the
// next exchange of the call the next one; an explicit attempt number wins;
// a feed's tool.call is the next attempt the feed has not announced, its
// result without a number attempt 1; anything else joins the latest.
func (c *callState) attemptFor(ev *model.Event) *attemptState {
	if ev.Exchange != "" {
		for _, a := range c.attempts {
			if a.exchange == ev.Exchange && a.sourceName == ev.SourceName {
				return a
			}
		}
		n := ev.Attempt
		if n == 0 {
			n = 1
			for _, a := range c.attempts {
				if a.exchange != "" && a.n >= n {
					n = a.n + 1
				}
			}
		}
		a := c.attemptN(n)
		if a != nil && a.exchange == "" && !a.queued { // a queued one is being, or has been, made
			a.exchange, a.sourceName = ev.Exchange, ev.SourceName
		}
		return a
	}
	n := ev.Attempt
	if a := c.feedOnlyRetry(ev); a != nil {
		return a
	}
	if n == 0 {
		switch ev.Kind {
		case model.KindToolCall:
			n = 1
			for _, a := range c.attempts {
				if a.feedCall && a.n >= n {
					n = a.n + 1
				}
			}
		case model.KindToolResult:
			n = 1
		default:
			n = 1
			if len(c.attempts) > 0 {
				n = c.attempts[len(c.attempts)-1].n
			}
		}
	}
	return c.attemptN(n)
}

// feedOnlyRetry is the open attempt a feed's result of attempt n > 1
// ends, when no tap saw the attempts: a feed announces a call once and
// reports only the attempt that answered, so its one span runs from the
// tool.call to that result and carries that attempt's number.
func (c *callState) feedOnlyRetry(ev *model.Event) *attemptState {
	if ev.Kind != model.KindToolResult || ev.Attempt < 2 || ev.Source == model.SourceTap || len(c.attempts) == 0 {
		return nil
	}
	last := c.attempts[len(c.attempts)-1]
	if last.n >= ev.Attempt || last.exchange != "" || !last.feedCall || !last.ended.IsZero() || last.queued {
		return nil
	}
	last.n = ev.Attempt
	return last
}

// attemptN returns attempt n, made if new; nil past MaxAttempts.
func (c *callState) attemptN(n int) *attemptState {
	n = max(n, 1)
	for _, a := range c.attempts {
		if a.n == n {
			return a
		}
	}
	if len(c.attempts) >= model.MaxAttempts {
		return nil
	}
	a := &attemptState{n: n, call: c}
	c.insert(a)
	return a
}

// insert places a in order. a.call stays the call that made it: a span
// being made reads it outside the lock.
func (c *callState) insert(a *attemptState) {
	i := len(c.attempts)
	for i > 0 && c.attempts[i-1].n > a.n {
		i--
	}
	c.attempts = append(c.attempts, nil)
	copy(c.attempts[i+1:], c.attempts[i:])
	c.attempts[i] = a
}
