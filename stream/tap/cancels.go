package tap

import (
	"sync"
	"sync/atomic"
	"time"
)

// pendingCancels counts notifications/cancelled requests that reached the
// tap but are not yet announced. The server reacts to a cancellation at
// once (stops, answers, or keeps reporting), and the call's stream may be
// parsed before the notification that caused it: what the stream says after
// waits until the cancellations that came first are applied. Cancellations
// are rare, so the usual cost is one atomic load.
type pendingCancels struct {
	pending atomic.Int32
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed and replaced when n drops
}

// maxCancelBody bounds the bytes searched for a cancellation on the request
// path: a notifications/cancelled is a few hundred bytes.
const maxCancelBody = 64 << 10

// cancelsSettle bounds how long a stream's message waits for them.
const cancelsSettle = 100 * time.Millisecond

func (p *pendingCancels) add() {
	p.pending.Add(1)
	p.mu.Lock()
	p.n++
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	p.mu.Unlock()
}

func (p *pendingCancels) done() {
	p.mu.Lock()
	p.n--
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	p.pending.Add(-1)
}

// settle waits (at most cancelsSettle) until no cancellation is pending.
func (p *pendingCancels) settle() {
	if p.pending.Load() == 0 {
		return
	}
	var deadline <-chan time.Time
	for {
		p.mu.Lock()
		n, changed := p.n, p.changed
		p.mu.Unlock()
		if n == 0 {
			return
		}
		if deadline == nil {
			t := time.NewTimer(cancelsSettle)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-changed:
		case <-deadline:
			return
		}
	}
}
