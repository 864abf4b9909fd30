package output

import (
	"container/heap"
	"sync"
	"time"

	"toolscope/model"
)

// Sources report from their own goroutines, each event stamped when it
// happened on the wire: a tap's tool.call with the time its request
// arrived, sent on once its body was read, after a progress notification
// of another call that came later; a feed's events with the platform's
// clock. So events reach the outputs out of time order by a few
// milliseconds. A reader of --output text reads the time first on every
// line: InTimeOrder holds events a short window and hands them on in time
// order. JSON lines keep arrival order (a program sorts them if it needs
// to, and --record is written at once).

// TimeOrdered passes events to an output in time order, each held at most
// about twice its window. Emit never waits: it adds the event to a heap,
// and its own goroutine hands events on.
type TimeOrdered struct {
	out    Output
	window time.Duration
	now    func() time.Time

	releasing sync.Mutex // one release at a time: the output sees events in order
	batch     []model.Event

	mu      sync.Mutex // held briefly: Emit never waits on the output
	held    heldEvents
	seq     uint64
	stopped bool
	wake    chan struct{}
	done    chan struct{}
}

// maxHeld bounds the events held: past it the oldest goes on at once.
const maxHeld = 4096

// InTimeOrder wraps out; window is how long an event waits for older ones.
func InTimeOrder(out Output, window time.Duration) *TimeOrdered {
	o := &TimeOrdered{out: out, window: window, now: time.Now, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.loop()
	return o
}

// Emit holds the event; events past maxHeld push the oldest on.
func (o *TimeOrdered) Emit(e model.Event) {
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return
	}
	o.seq++
	heap.Push(&o.held, heldEvent{e: e, arrived: o.now(), seq: o.seq})
	if o.held.Len() > maxHeld {
		select { // under o.mu: Close closes wake under it too
		case o.wake <- struct{}{}:
		default:
		}
	}
	o.mu.Unlock()
}

// Flush hands every held event on, then flushes the output.
func (o *TimeOrdered) Flush() {
	o.release(true)
	if f, ok := o.out.(flusher); ok {
		f.Flush()
	}
}

// Close hands every held event on and closes the output.
func (o *TimeOrdered) Close() error {
	o.mu.Lock()
	stopped := o.stopped
	if !stopped {
		o.stopped = true
		close(o.wake)
	}
	o.mu.Unlock()
	<-o.done
	o.release(true)
	return o.out.Close()
}

// ReportTo passes the hub's problem report on to the output.
func (o *TimeOrdered) ReportTo(report func(Problem)) {
	if r, ok := o.out.(Reporter); ok {
		r.ReportTo(report)
	}
}

func (o *TimeOrdered) loop() {
	defer close(o.done)
	tick := time.NewTicker(max(o.window/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case _, ok := <-o.wake:
			if !ok {
				return
			}
		case <-tick.C:
		}
		o.release(false)
	}
}

// release hands on, oldest first, every event whose time is a window old,
// every event that waited two windows (a clock ahead of this one's), and
// what is past maxHeld; all of them when all is set. The events are taken
// under o.mu and handed on outside it, so Emit never waits on the output.
func (o *TimeOrdered) release(all bool) {
	o.releasing.Lock()
	defer o.releasing.Unlock()
	o.mu.Lock()
	now := o.now()
	due, stale := now.Add(-o.window), now.Add(-2*o.window)
	batch := o.batch[:0]
	for o.held.Len() > 0 {
		first := o.held[0]
		if !all && o.held.Len() <= maxHeld && first.e.Time.After(due) && first.arrived.After(stale) {
			break
		}
		heap.Pop(&o.held)
		batch = append(batch, first.e)
	}
	o.mu.Unlock()
	for i := range batch {
		o.out.Emit(batch[i])
		batch[i] = model.Event{}
	}
	o.batch = batch[:0]
}

// heldEvent is an event waiting, with when it arrived and in which order.
type heldEvent struct {
	e       model.Event
	arrived time.Time
	seq     uint64
}

// heldEvents is a min-heap by event time, then arrival.
type heldEvents []heldEvent

func (h heldEvents) Len() int { return len(h) }
func (h heldEvents) Less(i, j int) bool {
	if !h[i].e.Time.Equal(h[j].e.Time) {
		return h[i].e.Time.Before(h[j].e.Time)
	}
	return h[i].seq < h[j].seq
}
func (h heldEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heldEvents) Push(x any)   { *h = append(*h, x.(heldEvent)) }
func (h *heldEvents) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = heldEvent{}
	*h = old[:len(old)-1]
	return x
}
