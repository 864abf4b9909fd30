package tap

import "sync"

// registry finds in-flight calls by JSON-RPC id (for notifications/cancelled
// and results on a resumed stream) and by progress token (for progress sent
// on another stream). Ids and tokens are only unique within a session (every
// client numbers from 0 or 1), so each key holds a short list and a lookup
// matches within the message's scope (see find). Keys are jsonrpc.IDKey's: a
// server may echo an id or token in another JSON form.
type registry struct {
	mu      sync.Mutex
	byID    map[string][]*call
	byToken map[string][]*call
	held    []*heldCancel // see held.go
	// waiting holds the calls whose answer asked for input, by requestState
	// (see rounds.go), waitOrder them oldest first.
	waiting   map[string][]*pendingRound
	waitOrder []*pendingRound
}

// maxPerKey bounds how many in-flight calls share one id or token.
const maxPerKey = 64

func newRegistry() *registry {
	return &registry{byID: make(map[string][]*call), byToken: make(map[string][]*call), waiting: make(map[string][]*pendingRound)}
}

func (r *registry) add(c *call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.idKey != "" {
		r.byID[c.idKey] = pushBounded(r.byID[c.idKey], c)
	}
	if c.tokenKey != "" {
		r.byToken[c.tokenKey] = pushBounded(r.byToken[c.tokenKey], c)
	}
}

func pushBounded(list []*call, c *call) []*call {
	if len(list) >= maxPerKey {
		list = append(list[:0:0], list[1:]...)
	}
	return append(list, c)
}

func (r *registry) remove(c *call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	removeFrom(r.byID, c.idKey, c)
	removeFrom(r.byToken, c.tokenKey, c)
}

func removeFrom(m map[string][]*call, key string, c *call) {
	if key == "" {
		return
	}
	list := m[key]
	for i, o := range list {
		if o == c {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(m, key)
	} else {
		m[key] = list
	}
}

// scope is where a message came from: the MCP session it names, and the
// client connection it arrived on.
type scope struct {
	session string // Mcp-Session-Id of the request ("" for a stateless server)
	conn    string // the client's address: one TCP connection
}

// byIDIn finds the call a message's id names; when it matches none, others
// are the calls it could have meant (see find).
func (r *registry) byIDIn(key string, s scope) (c *call, others []*call) {
	return r.find(r.byID, key, s)
}

func (r *registry) byTokenIn(key string, s scope) *call {
	c, _ := r.find(r.byToken, key, s)
	return c
}

// find matches key within the scope the protocol gives it: with a session,
// only that session's calls (the latest, should a client reuse an id); with
// none, a session-less call on the same connection, else the one session-less
// call holding the key (a platform that opens a connection per message, as
// AgentArea does). Several such calls on other connections are ambiguous:
// nothing matches rather than a guess, and they are returned.
func (r *registry) find(m map[string][]*call, key string, s scope) (*call, []*call) {
	if key == "" {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return matchScope(m[key], s)
}

// matchScope is find's rule over the calls holding one key.
func matchScope(list []*call, s scope) (*call, []*call) {
	var only *call
	candidates := 0
	for i := len(list) - 1; i >= 0; i-- {
		c := list[i]
		switch {
		case c.scope.session != s.session:
			continue
		case s.session != "" || c.scope.conn == s.conn:
			return c, nil
		}
		candidates++
		only = c
	}
	switch candidates {
	case 0:
		return nil, nil
	case 1:
		return only, nil
	}
	var others []*call
	for _, c := range list {
		if c.scope.session == "" {
			others = append(others, c)
		}
	}
	return nil, others
}

// stopTimers silences the timeout timers of every call still in flight.
func (r *registry) stopTimers() {
	r.mu.Lock()
	var all []*call
	for _, list := range r.byID {
		all = append(all, list...)
	}
	for _, list := range r.byToken {
		all = append(all, list...)
	}
	r.mu.Unlock()
	for _, c := range all {
		c.stop()
	}
}
