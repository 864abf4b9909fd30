package tap

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/model"
)

// runners run the observation of exchanges, off the proxy path: the
// handler admits an exchange (admit) and hands it over when its side work
// may start; it never waits for it. Observation is bounded: at most
// maxObserved exchanges are admitted and not yet run to their end. Past
// that (the sink is stuck, or the parser is behind), an exchange is
// forwarded unobserved, whole, and counted; a parse_lagging warning says
// how many (sayLost). While the runners keep up, nothing is lost.
//
// An exchange whose handler is done (the usual call: its request and
// answer are both there) waits in a queue, without a goroutine, for one of
// at most maxWorkers workers (queue): a backlog costs its bytes, not a
// stack each. One that must be watched as it goes (an event stream, a slow
// answer) gets a runner of its own (start), which may wait on the wire.
//
// Workers and runners are reused goroutines. Parsing and verifying a call
// takes a deeper stack than a new goroutine starts with: a goroutine per
// exchange grew (copied) its stack again for every call, a reused one keeps
// the stack it grew.
type runners struct {
	handoff  chan *exchange // unbuffered: only an idle runner takes one
	pending  chan *exchange // exchanges whose handler is done, for the workers
	quit     chan struct{}  // closed at shutdown: idle runners end
	quitOnce sync.Once

	limit    int32
	observed atomic.Int32 // exchanges admitted, not yet run to their end
	workers  atomic.Int32 // goroutines serving pending
	lost     atomic.Int64 // exchanges forwarded unobserved, not yet said
	saying   atomic.Bool  // a sayLost goroutine is on its way
}

// maxObserved bounds the exchanges under observation at once. A queued
// one holds its copies (the request under the tap's byte budget, the
// response in a side pipe): a few KB for a usual call. It is far above what
// a working tap holds (one per call in flight, plus a backlog when the
// traffic outruns the observation for a while: on two saturated cores, 50
// clients built ~1,000 in half a second).
const maxObserved = 4096

// maxWorkers bounds the goroutines that work through the queue: the
// observation is CPU work, more goroutines than cores would only take
// turns (and each keep a grown stack).
var maxWorkers = int32(max(2, runtime.GOMAXPROCS(0)))

// runnerIdle is how long a runner waits for the next exchange before it
// ends: long enough to carry a busy agent's calls from one to the next.
const runnerIdle = 2 * time.Second

// lostEvery gathers the exchanges lost in a burst into one warning.
const lostEvery = time.Second

func newRunners() *runners {
	return &runners{handoff: make(chan *exchange), pending: make(chan *exchange, maxObserved),
		quit: make(chan struct{}), limit: maxObserved}
}

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

// queue has ex (admitted, its handler done) run by a worker, in turn.
// The send never waits: the queue holds as many as may be admitted.
func (r *runners) queue(ex *exchange) {
	r.pending <- ex
	if r.takeWorkerPlace() {
		go r.work()
	}
}

// takeWorkerPlace counts one more worker, unless there are maxWorkers.
func (r *runners) takeWorkerPlace() bool {
	for {
		n := r.workers.Load()
		if n >= maxWorkers {
			return false
		}
		if r.workers.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// work runs queued exchanges until the queue has been empty runnerIdle.
func (r *runners) work() {
	idle := time.NewTimer(runnerIdle)
	defer idle.Stop()
	for {
		select {
		case ex := <-r.pending:
			ex.run()
			r.done()
			idle.Reset(runnerIdle)
			continue
		case <-idle.C:
		case <-r.quit:
		}
		r.workers.Add(-1)
		// One queued just now may have seen every worker busy: stay for it.
		if len(r.pending) == 0 || !r.takeWorkerPlace() {
			return
		}
		idle.Reset(runnerIdle)
	}
}

// start runs ex (admitted) on an idle runner, or on a new one when all are
// busy.
func (r *runners) start(ex *exchange) {
	select {
	case r.handoff <- ex:
	default:
		go r.loop(ex)
	}
}

func (r *runners) loop(ex *exchange) {
	idle := time.NewTimer(runnerIdle)
	defer idle.Stop()
	for {
		ex.run()
		r.done()
		idle.Reset(runnerIdle)
		select {
		case ex = <-r.handoff:
		case <-idle.C:
			return
		case <-r.quit:
			return
		}
	}
}

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

// stop ends the idle runners and has lost exchanges said now; an exchange
// started later still runs.
func (r *runners) stop() { r.quitOnce.Do(func() { close(r.quit) }) }
