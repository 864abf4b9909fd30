package tap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"toolscope/decoder/jsonrpc"
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
// parsed it (see unreadCalls).
const roundJoinWait = 250 * time.Millisecond

// unreadCalls are the exchanges that may be a tools/call (a POST whose
// Mcp-Method says tools/call, or says nothing) whose side work has not
// ended: the round before a later round's request is among them until its
// answer is read. Counted from the request's arrival, before it is
// forwarded, by the exchange's number.
type unreadCalls struct {
	mu   sync.Mutex
	seqs map[uint64]string // exchange number -> Mcp-Name (the tool)
}

// begin counts an exchange whose request may be a tools/call.
func (u *unreadCalls) begin(r *http.Request, seq uint64) bool {
	if method := r.Header.Get("Mcp-Method"); r.Method != http.MethodPost || method != "" && method != jsonrpc.MethodToolsCall {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seqs == nil {
		u.seqs = make(map[uint64]string)
	}
	u.seqs[seq] = r.Header.Get("Mcp-Name")
	return true
}

func (u *unreadCalls) end(seq uint64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.seqs, seq)
}

// before says whether an exchange before seq calling tool (or a tool not
// named) is still unread.
func (u *unreadCalls) before(seq uint64, tool string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for s, name := range u.seqs {
		if s < seq && (name == "" || name == tool) {
			return true
		}
	}
	return false
}

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

// joinRound makes c, the call of exchange seq (0 over stdio), a later
// round of the call it continues, if any: its events then carry that
// call's exchange and the next round's number. While a tools/call before
// it is unread, the round it continues may be that one: it waits for it
// (roundJoinWait at most; rare: only a request carrying a state back).
func (t *Tap) joinRound(c *call, seq uint64) {
	if c.msg.Call.RequestState == "" && c.msg.Call.InputResponses == nil {
		return
	}
	prev := t.calls.takePrevRound(c)
	for deadline := time.Now().Add(roundJoinWait); prev == nil && seq > 0 && time.Now().Before(deadline) && t.unread.before(seq, c.tool); {
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
