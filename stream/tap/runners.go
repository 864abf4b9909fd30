package tap

import (
	"sync"
	"time"
)

// runners reuses the goroutines that run exchanges. Parsing and verifying a
// call takes a deeper stack than a new goroutine starts with: a goroutine per
// exchange grew (copied) its stack again for every call, a reused one keeps
// the stack it grew.
type runners struct {
	handoff  chan *exchange // unbuffered: only an idle runner takes one
	quit     chan struct{}  // closed at shutdown: idle runners end
	quitOnce sync.Once
}

// runnerIdle is how long a runner waits for the next exchange before it
// ends: long enough to carry a busy agent's calls from one to the next.
const runnerIdle = 2 * time.Second

func newRunners() *runners {
	return &runners{handoff: make(chan *exchange), quit: make(chan struct{})}
}

// start runs ex on an idle runner, or on a new one when all are busy.
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

// stop ends the idle runners; an exchange started later still runs.
func (r *runners) stop() { r.quitOnce.Do(func() { close(r.quit) }) }
