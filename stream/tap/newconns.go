package tap

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// newConns tracks the server's connections that have not sent a request
// yet. net/http's Shutdown counts such a connection as busy for 5 s (its
// request may be on the way), so an HTTP client's spare connection would
// hold `toolscope tap` that long at exit.
type newConns struct {
	mu    sync.Mutex
	since map[net.Conn]time.Time
}

// newConnGrace is how long a connection may stay silent at shutdown before
// it is closed: a request already on the wire has its headers read well
// within it.
const newConnGrace = 100 * time.Millisecond

// track is the server's ConnState hook.
func (n *newConns) track(c net.Conn, state http.ConnState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if state == http.StateNew {
		if n.since == nil {
			n.since = make(map[net.Conn]time.Time)
		}
		n.since[c] = time.Now()
		return
	}
	delete(n.since, c)
}

// closeSilent closes the connections that have sent nothing for the grace.
func (n *newConns) closeSilent() {
	n.mu.Lock()
	var silent []net.Conn
	for c, since := range n.since {
		if time.Since(since) >= newConnGrace {
			silent = append(silent, c)
			delete(n.since, c)
		}
	}
	n.mu.Unlock()
	for _, c := range silent {
		c.Close()
	}
}

// closeSilentUntil closes silent connections every few milliseconds until
// done is closed (the server's Shutdown returned).
func (n *newConns) closeSilentUntil(done <-chan struct{}) {
	tick := time.NewTicker(newConnGrace / 5)
	defer tick.Stop()
	for {
		n.closeSilent()
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}
