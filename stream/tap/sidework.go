package tap

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"toolscope/decoder"
)

// An exchange's side work, off the proxy path. The handler hands the
// exchange over and never waits for it:
//   - scheduleSideWork: its side work starts on a runner when the handler is
//     done or the parse grace has passed, whichever comes first
//     (streamStarted: at once for an event stream);
//   - settle: the handler, or the proxy, says how the exchange ended;
//   - handlerDone: when ServeHTTP returns, the exchange is queued for a
//     worker unless a runner has it already;
//   - enforced: an exchange --enforce answered itself is queued at once;
//   - releaseBody: the request body's bytes go back to the budget once the
//     side work (or an unobserved handler) is done with them.
// The runners below run that work (run, in exchange.go); admit.go bounds
// how many exchanges are under observation at once.

// scheduleSideWork starts the exchange's side work on a runner when its
// handler is done or the parse grace has passed, whichever comes first. Waiting
// in the runner instead cost every call a timer, three wake-ups and a sleep.
func (ex *exchange) scheduleSideWork() {
	ex.sideStart = time.AfterFunc(ex.t.cfg.parseGrace, func() { ex.t.runners.start(ex) })
}

// defaultParseGrace is how long the side parser leaves a call whose answer is not
// an event stream: one answered within it is parsed once its handler is
// done, in one go on a runner (see handlerDone); a slower one's from then
// on. 50 ms still reads as at once to a human eye, and it is longer than a
// busy tap's calls take: at 3 ms, under load every call went to a runner
// (a timer goroutine, two wake-ups and a wait on the answer per call) just
// when CPU was shortest. An event stream's side work
// starts when its head arrives (streamStarted): its progress is live.
const defaultParseGrace = 50 * time.Millisecond

// streamStarted starts the side work now, on a runner, unless it has
// started already: the answer is an event stream, parsed as it flows.
func (ex *exchange) streamStarted() {
	if ex.sideStart != nil && ex.sideStart.Stop() {
		ex.t.runners.start(ex)
	}
}

// settle hands the exchange's outcome to its goroutine; the first one counts.
func (ex *exchange) settle(o outcome) {
	if ex.settled.CompareAndSwap(false, true) {
		o.at = time.Now()
		if o.resp != nil {
			ex.pipe = o.resp.pipe
		}
		ex.outcomes <- o
	}
}

// handlerDone runs when ServeHTTP returns, however it returns. Unless a
// runner has the exchange already (an event stream, or the parse grace
// passed), it queues it for a worker and returns at once: this connection's
// next request is read only once ServeHTTP has returned, and it must not
// wait for the last one's observation.
func (ex *exchange) handlerDone() {
	ex.settle(outcome{kind: outcomeAborted})
	if ex.pipe != nil {
		ex.pipe.finish(errClientGone) // no-op when the body already ended
	}
	if !ex.sideStart.Stop() {
		return // a runner has it
	}
	if ex.served && ex.client.Err() == nil {
		if ex.tee != nil {
			// What the transport left unread stays unread: run must not wait
			// for it (ServeHTTP's own deferred end comes after this).
			ex.tee.end(false, "request body not read to its end")
		}
		ex.over = true // its calls' timeout timers are armed only if left open
	}
	ex.t.runners.queue(ex)
}

// enforced hands an exchange --enforce answered itself (a) to its side
// work at once, unless it was not admitted (then its bytes are given back).
func (ex *exchange) enforced(observed bool, a *decoder.Answer) {
	if !observed {
		ex.releaseBody()
		return
	}
	ex.t.inflight.Add(1)
	ex.settle(outcome{kind: outcomeEnforced, status: a.Status, rpcCode: a.Code, message: "answered by the tap (--enforce), not forwarded: " + a.Reason})
	ex.t.runners.queue(ex)
}

// releaseBody gives the exchange's request-body bytes back to the budget.
func (ex *exchange) releaseBody() {
	if ex.tee != nil {
		ex.tee.release()
	}
	ex.t.budget.release(ex.held)
	ex.held = 0
}

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

// maxWorkers bounds the goroutines that work through the queue: the
// observation is CPU work, more goroutines than cores would only take
// turns (and each keep a grown stack).
var maxWorkers = int32(max(2, runtime.GOMAXPROCS(0)))

// runnerIdle is how long a runner waits for the next exchange before it
// ends: long enough to carry a busy agent's calls from one to the next.
const runnerIdle = 2 * time.Second

func newRunners() *runners {
	return &runners{handoff: make(chan *exchange), pending: make(chan *exchange, maxObserved),
		quit: make(chan struct{}), limit: maxObserved}
}

// queue has ex (admitted, its handler done) run by a worker, in turn.
// The send never waits: the queue holds as many as may be admitted.
func (r *runners) queue(ex *exchange) {
	ex.queuedAt = time.Now()
	r.pending <- ex
	if r.takeWorkerPlace() {
		go r.work()
	}
}

// answerLead is how long a queued exchange waits for its worker after its
// handler handed it over. The handler returns before net/http writes the
// answer out, and the client, its transport and the upstream still need a
// core to take it in: observation started at once took that core on two
// cores and added a third to a small call's latency (BenchmarkTap/latency,
// docs/performance.md). A moment later the answer is through. An exchange
// that waited in the queue as long starts at once: a backlog is not slowed.
var answerLead = time.Millisecond

// letAnswerLead waits until the exchange has been queued answerLead.
func (ex *exchange) letAnswerLead() {
	if d := answerLead - time.Since(ex.queuedAt); d > 0 {
		time.Sleep(d)
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
			ex.letAnswerLead()
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

// stop ends the idle runners and has lost exchanges said now; an exchange
// started later still runs.
func (r *runners) stop() { r.quitOnce.Do(func() { close(r.quit) }) }
