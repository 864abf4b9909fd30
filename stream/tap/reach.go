package tap

import (
	"fmt"
	"net"
	"time"

	"toolscope/model"
)

// A tap whose upstream does not answer says so as it starts, not at the
// first call: its state turns failing, with why, and back to connected once
// a connection to the upstream succeeds. The check is a TCP connection,
// made on its own goroutine (never on a request's path), again after a
// growing wait while it fails, until the tap shuts down.

// Waits between checks of an upstream that does not answer.
const (
	reachFirstWait = 2 * time.Second
	reachMaxWait   = 30 * time.Second
	reachTimeout   = 3 * time.Second
	reachStep      = 100 * time.Millisecond // how soon a wait sees Shutdown
)

// watchUpstream checks the upstream until it answers or the tap closes;
// listening is the tap's own address, for the message.
func (t *Tap) watchUpstream(listening string) {
	addr := upstreamAddr(t.upstream.Hostname(), t.upstream.Port(), t.upstream.Scheme)
	wait, failing := reachFirstWait, false
	for !t.closing.Load() {
		conn, err := net.DialTimeout("tcp", addr, reachTimeout)
		if err == nil {
			conn.Close()
			if failing {
				t.emitUnlessClosed(model.Event{Kind: model.KindSourceStatus, State: model.StateConnected,
					Detail: fmt.Sprintf("upstream %s answers again; listening on %s", model.RedactURL(t.upstream), listening)})
			}
			return
		}
		if !failing {
			failing = true
			t.emitUnlessClosed(model.Event{Kind: model.KindSourceStatus, State: model.StateFailing,
				Detail: fmt.Sprintf("upstream %s does not answer (the tap listens on %s and forwards once it does; checked again every few seconds): %v",
					model.RedactURL(t.upstream), listening, err)})
		}
		for slept := time.Duration(0); slept < wait && !t.closing.Load(); slept += reachStep {
			time.Sleep(reachStep)
		}
		wait = min(2*wait, reachMaxWait)
	}
}

// emitUnlessClosed emits ev unless Shutdown has begun: a state said after
// the tap's "ended" would be false. Shutdown marks closing before it takes
// t.mu, so an event emitted under t.mu is said before "ended" or not at all.
func (t *Tap) emitUnlessClosed(ev model.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closing.Load() {
		t.emit(ev)
	}
}

// upstreamAddr is host:port of the upstream, its scheme's port by default.
func upstreamAddr(host, port, scheme string) string {
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(host, port)
}
