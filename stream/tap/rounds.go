package tap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
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

// pendingRound is a call whose answer asked for input, as much of it as
// its next round is matched by (a few hundred bytes: not the call, which
// holds its request's body).
type pendingRound struct {
	key      string // stateKey of its requestState
	scope    scope
	tool     string
	args     [sha256.Size]byte // argumentsDigest of its arguments
	exchange string            // its first round's: the call's id on the tap
	round    int32
	// asked are the ids of the input requests its answer made, nil when
	// there were more or longer ones than maxAskedKept (then its next
	// round's answers are not judged).
	asked []string
	// carried is the stateKey of the state its own request carried back
	// ("" on a first round): a request carrying that one again is the
	// client sending the round before once more, not a wrong state.
	carried string
	// seq is the number of the exchange whose answer asked (0 over stdio):
	// a request continues only a call whose request came before its own.
	// Observation may read a later exchange's answer first.
	seq uint64
}

// maxAskedKept bounds the input request ids kept per waiting call: their
// number and each one's length.
const maxAskedKept = 32

// askedIDs are the ids of the input requests an answer made, as kept
// (nil past maxAskedKept).
func askedIDs(asked []jsonrpc.InputRequest) []string {
	if len(asked) > maxAskedKept {
		return nil
	}
	ids := make([]string, 0, len(asked))
	for _, ir := range asked {
		if len(ir.ID) > 4*maxAskedKept {
			return nil
		}
		ids = append(ids, ir.ID)
	}
	return ids
}

// argumentsDigest identifies arguments up to insignificant whitespace
// (absent and null alike).
func argumentsDigest(args json.RawMessage) [sha256.Size]byte {
	var b bytes.Buffer
	if len(args) > 0 && json.Compact(&b, args) != nil {
		b.Reset()
		b.Write(args)
	}
	return sha256.Sum256(b.Bytes())
}

// awaitNextRound keeps what a call whose answer asked for input is matched
// by until its next round comes (called with c.mu held).
func (r *registry) awaitNextRound(c *call, answer *jsonrpc.Result) {
	p := &pendingRound{key: stateKey(answer.RequestState), scope: c.scope, tool: c.tool, args: argumentsDigest(c.msg.Call.Arguments),
		exchange: c.callEv.Exchange, round: c.callEv.Round, asked: askedIDs(answer.InputRequests), seq: c.seq}
	if c.msg.Call.RequestState != "" {
		p.carried = stateKey(c.msg.Call.RequestState)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting[p.key] = append(r.waiting[p.key], p)
	r.waitOrder = append(r.waitOrder, p)
	if len(r.waitOrder) > maxWaiting {
		r.forget(r.waitOrder[0])
	}
}

// forget drops a pending round (r.mu held).
func (r *registry) forget(p *pendingRound) {
	list := r.waiting[p.key]
	for i, o := range list {
		if o == p {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(r.waiting, p.key)
	} else {
		r.waiting[p.key] = list
	}
	for i, o := range r.waitOrder {
		if o == p {
			r.waitOrder = append(r.waitOrder[:i:i], r.waitOrder[i+1:]...)
			break
		}
	}
}

// takePrevRound finds, and forgets, the round a later round's request
// continues: the one it names by requestState, with the same tool and
// arguments, inside the request's MCP session where there is one, else on
// its connection, else by the state alone (the one session-less round
// waiting under it). Without a state, only the session or the connection
// match.
func (r *registry) takePrevRound(c *call) *pendingRound {
	state := c.msg.Call.RequestState
	key, args := stateKey(state), argumentsDigest(c.msg.Call.Arguments)
	r.mu.Lock()
	defer r.mu.Unlock()
	var prev, only *pendingRound
	sessionless := 0
	for _, p := range r.waiting[key] { // oldest first: the latest match wins
		switch {
		case p.tool != c.tool || p.args != args || p.scope.session != c.scope.session:
		case c.scope.session != "" || p.scope.conn == c.scope.conn:
			prev = p
		default:
			sessionless++
			only = p
		}
	}
	if prev == nil && sessionless == 1 && state != "" {
		prev = only
	}
	if prev != nil {
		r.forget(prev)
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
	// The answers are said even when the round they continue was not seen
	// (the tap started in between, or let it go).
	c.callEv.InputResponses = c.msg.Call.InputResponses
	prev := t.calls.takePrevRound(c)
	for deadline := time.Now().Add(roundJoinWait); prev == nil && seq > 0 && time.Now().Before(deadline) && t.unread.before(seq, c.tool); {
		time.Sleep(2 * time.Millisecond)
		prev = t.calls.takePrevRound(c)
	}
	if prev == nil {
		if c.msg.Call.InputResponses != nil && t.calls.stateNotReturned(c, seq) {
			c.pending = append(c.pending, decoder.StateNotReturned(c.msg.Call.RequestState))
		}
		return
	}
	c.callEv.Exchange, c.callEv.Round = prev.exchange, prev.round+1
	if prev.asked != nil {
		c.pending = append(c.pending, decoder.RoundAnswers(prev.asked, c.msg.Call.InputResponseIDs)...)
	}
}

// stateNotReturned says whether c, a request answering input requests
// that continues no waiting call by its requestState, answers one that
// gave a state all the same: the one call waiting with the same tool and
// arguments inside c's MCP session (or, session-less, on its connection),
// whose requests c's answers answer key for key. Anything less sure
// (another call of the same tool and arguments waiting there, answers to
// other requests, the state of that call's round before: a round sent
// again, a call the tap did not see or let go) is not said: a new call is
// not a wrong round. A call whose request came after c's (seq, 0 over
// stdio) is not one c may continue.
func (r *registry) stateNotReturned(c *call, seq uint64) bool {
	key, args := stateKey(c.msg.Call.RequestState), argumentsDigest(c.msg.Call.Arguments)
	r.mu.Lock()
	defer r.mu.Unlock()
	var match *pendingRound
	for _, p := range r.waitOrder {
		if p.tool != c.tool || p.args != args || p.scope.session != c.scope.session ||
			c.scope.session == "" && p.scope.conn != c.scope.conn || seq > 0 && p.seq >= seq {
			continue
		}
		if match != nil {
			return false
		}
		match = p
	}
	return match != nil && match.key != key && match.key != stateKey("") && match.carried != key &&
		len(match.asked) > 0 && decoder.RoundAnswers(match.asked, c.msg.Call.InputResponseIDs) == nil
}

// inputWarnings are what the rounds' rules say of an answer that asks the
// client for input, beyond the answer itself: what it asks against what
// its request declared the client can do (in its _meta, else in its
// session's initialize).
func (c *call) inputWarnings(s *decoder.ResultSummary) []model.Warning {
	caps := c.msg.Meta.ClientCapabilities
	if caps == nil && c.scope.session != "" {
		caps = c.t.declared.of(c.scope.session)
	}
	return decoder.UndeclaredInputs(s.InputRequests, caps)
}

// declaredCapabilities are the capabilities clients declared in their
// session's initialize (MCP 2025-11-25 declares them once, there), by
// Mcp-Session-Id ("stdio" for the stdio tap's one session): the latest
// maxWaiting sessions.
type declaredCapabilities struct {
	mu        sync.Mutex
	bySession map[string]*jsonrpc.ClientCapabilities
	order     []string
}

// initialized keeps what an initialize request declared for the session
// its answer opened.
func (d *declaredCapabilities) initialized(session string, caps *jsonrpc.ClientCapabilities) {
	if session == "" || caps == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bySession == nil {
		d.bySession = make(map[string]*jsonrpc.ClientCapabilities)
	}
	if _, ok := d.bySession[session]; !ok {
		d.order = append(d.order, session)
	}
	d.bySession[session] = caps
	if len(d.order) > maxWaiting {
		delete(d.bySession, d.order[0])
		d.order = d.order[1:]
	}
}

func (d *declaredCapabilities) of(session string) *jsonrpc.ClientCapabilities {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bySession[session]
}
