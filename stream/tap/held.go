package tap

import (
	"slices"
	"time"
)

// heldCancel is a notifications/cancelled naming an id that several
// session-less calls on other connections share (a stateless server, a
// platform that opens a connection per message and numbers every client's
// requests alike). AgentArea closes the call's stream just after sending
// it: the one of those calls whose client closes its stream within
// cancelGrace is the call it named.
type heldCancel struct {
	key     string
	reason  string
	at      time.Time     // when the notification reached the tap
	claimed chan struct{} // closed when a call took it
}

// maxHeld bounds the cancellations held at once.
const maxHeld = 64

// hold keeps an ambiguous cancellation for a call to claim, unless one of
// the candidates' clients closed its stream meanwhile: that call is
// returned instead. Checking under r.mu, which claimHeld takes after a call
// is marked gone, means a close is never missed by both sides.
func (r *registry) hold(key, reason string, at time.Time, candidates []*call) (*heldCancel, *call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := onlyGone(candidates); c != nil {
		return nil, c
	}
	h := &heldCancel{key: key, reason: reason, at: at, claimed: make(chan struct{})}
	if len(r.held) >= maxHeld {
		r.held = append(r.held[:0:0], r.held[1:]...)
	}
	r.held = append(r.held, h)
	return h, nil
}

// claimHeld gives a session-less call whose client closed its stream at
// `gone` the cancellation held for its id just before, if any.
func (r *registry) claimHeld(c *call, gone time.Time) *heldCancel {
	if c.scope.session != "" || c.idKey == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, h := range r.held {
		if h.key == c.idKey && !gone.Before(h.at) && gone.Sub(h.at) <= cancelGrace {
			r.held = append(r.held[:i:i], r.held[i+1:]...)
			close(h.claimed)
			return h
		}
	}
	return nil
}

// release drops h and reports whether a call claimed it. The claimed
// channel says so, not h's absence from the list: past maxHeld, hold drops
// the oldest unclaimed one too.
func (r *registry) release(h *heldCancel) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = slices.DeleteFunc(r.held, func(o *heldCancel) bool { return o == h })
	select {
	case <-h.claimed:
		return true
	default:
		return false
	}
}

// await waits up to cancelGrace for a call to claim h.
func (h *heldCancel) await() {
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-h.claimed:
	case <-t.C:
	}
}
