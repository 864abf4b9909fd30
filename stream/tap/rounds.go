package tap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// A multi-round call (MCP 2026-07-28): the server answers a tools/call
// with resultType input_required, what it asks of the client and a
// requestState; the client sends the same call again, under a new id, with
// the state and its answers. The tap joins the rounds into one call: the
// later round's events name the first round's exchange (the call's id on
// the tap) and their round.

// maxWaiting bounds the calls the tap keeps waiting for their next round
// (a client that never comes back leaves one behind).
const maxWaiting = 4096

// roundJoinWait is how long a later round's request waits for the answer
// of the round before it to be read: the client sends the next round as
// soon as it has that answer, possibly before the tap's side work has
// parsed it.
const roundJoinWait = 250 * time.Millisecond

// stateKey is what a requestState is kept under: as it is when short, a
// digest when long (servers seal their state, and it may be large).
func stateKey(state string) string {
	if len(state) <= 80 {
		return "s:" + state
	}
	sum := sha256.Sum256([]byte(state))
	return "h:" + hex.EncodeToString(sum[:])
}

// waiter is a call waiting for its next round, and the key it waits under.
type waiter struct {
	c   *call
	key string
}

// awaitNextRound keeps a call whose answer asked for input until its next
// round comes (called with c.mu held, the call already out of flight).
func (r *registry) awaitNextRound(c *call, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := stateKey(state)
	r.waiting[key] = pushBounded(r.waiting[key], c)
	r.waitOrder = append(r.waitOrder, waiter{c, key})
	if len(r.waitOrder) > maxWaiting {
		old := r.waitOrder[0]
		r.waitOrder = append(r.waitOrder[:0:0], r.waitOrder[1:]...)
		removeFrom(r.waiting, old.key, old.c)
	}
}

// takePrevRound finds, and forgets, the round a later round's request
// continues: the call it names by requestState (inside the request's MCP
// session where there is one, else on its connection, else by the state
// alone), with the same tool and arguments.
func (r *registry) takePrevRound(c *call) *call {
	state, answers := c.msg.Call.RequestState, c.msg.Call.InputResponses
	if state == "" && answers == nil {
		return nil
	}
	key := stateKey(state)
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.waiting[key]
	var same []*call
	for _, p := range list {
		if p.tool == c.tool && sameJSON(p.msg.Call.Arguments, c.msg.Call.Arguments) {
			same = append(same, p)
		}
	}
	var prev *call
	if state == "" {
		// No state to go by: only a round in the same session or on the
		// same connection.
		for _, p := range same {
			if p.scope.session == c.scope.session && (c.scope.session != "" || p.scope.conn == c.scope.conn) {
				prev = p
			}
		}
	} else {
		prev, _ = matchScope(same, c.scope)
	}
	if prev != nil {
		removeFrom(r.waiting, key, prev)
		for i, o := range r.waitOrder {
			if o.c == prev {
				r.waitOrder = append(r.waitOrder[:i:i], r.waitOrder[i+1:]...)
				break
			}
		}
	}
	return prev
}

// roundPending says whether a call of the same tool is still in flight in
// c's scope, started before it: its answer, not yet read, may be the one
// c's request answers.
func (r *registry) roundPending(c *call) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, list := range r.byID {
		for _, p := range list {
			if p != c && p.tool == c.tool && p.start.Before(c.start) && p.scope.session == c.scope.session {
				return true
			}
		}
	}
	return false
}

// joinRound makes c a later round of the call it continues, if any: its
// events then carry that call's exchange and the next round's number.
func (t *Tap) joinRound(c *call) {
	if c.msg.Call.RequestState == "" && c.msg.Call.InputResponses == nil {
		return
	}
	prev := t.calls.takePrevRound(c)
	for deadline := time.Now().Add(roundJoinWait); prev == nil && time.Now().Before(deadline) && t.calls.roundPending(c); {
		time.Sleep(2 * time.Millisecond)
		prev = t.calls.takePrevRound(c)
	}
	if prev == nil {
		return
	}
	prev.mu.Lock()
	c.callEv.Exchange, c.callEv.Round = prev.callEv.Exchange, prev.callEv.Round+1
	prev.mu.Unlock()
	c.callEv.InputResponses = c.msg.Call.InputResponses
}

// sameJSON says whether two JSON values are the same once compacted
// (absent and null alike).
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
