package tap

import (
	"fmt"
	"time"
	"toolscope/model"
)

// maxObserved bounds the exchanges under observation at once. A queued
// one holds its copies (the request under the tap's byte budget, the
// response in a side pipe): a few KB for a usual call. It is far above what
// a working tap holds (one per call in flight, plus a backlog when the
// traffic outruns the observation for a while: on two saturated cores, 50
// clients built ~1,000 in half a second).
const maxObserved = 4096

// lostEvery gathers the exchanges lost in a burst into one warning.
const lostEvery = time.Second

// admit takes a place under observation for one exchange, or counts it
// lost (and has it said) and reports false.
func (r *runners) admit(t *Tap) bool {
	if r.observed.Add(1) <= r.limit {
		return true
	}
	r.observed.Add(-1)
	r.lose(t)
	return false
}

// lose counts one exchange forwarded unobserved; one goroutine at a time
// says the count.
func (r *runners) lose(t *Tap) {
	r.lost.Add(1)
	if r.saying.CompareAndSwap(false, true) {
		t.inflight.Add(1) // Shutdown waits for the warning
		go r.sayLost(t)
	}
}

// sayLost warns, every lostEvery while exchanges are lost, how many were;
// at shutdown at once.
func (r *runners) sayLost(t *Tap) {
	defer t.inflight.Done()
	tick := time.NewTimer(lostEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-r.quit:
		}
		if n := r.lost.Swap(0); n > 0 {
			t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnParseLagging),
				Message: fmt.Sprintf("tap %s: observation fell behind (its sink or parser is slow): %d exchanges forwarded but not observed, their calls not shown", t.cfg.Name, n)})
			tick.Reset(lostEvery)
			continue
		}
		r.saying.Store(false)
		// A loss counted just now, after the swap, found saying set: say it.
		if r.lost.Load() == 0 || !r.saying.CompareAndSwap(false, true) {
			return
		}
		tick.Reset(lostEvery)
	}
}

// done gives an exchange's place back once its side work has ended.
func (r *runners) done() { r.observed.Add(-1) }

// aside runs a small piece of side work (a warning from the proxy path)
// under a place of observation on a goroutine of its own, or counts it lost:
// the proxy path never waits on the sink.
func (r *runners) aside(t *Tap, work func()) {
	if !r.admit(t) {
		return
	}
	t.inflight.Add(1)
	go func() {
		defer t.inflight.Done()
		defer r.done()
		work()
	}()
}
