package tap

import "sync"

// registry finds in-flight calls by JSON-RPC id (for notifications/cancelled
// and results on a resumed stream) and by progress token (for progress sent
// on another stream). Ids repeat across connections, so each key holds a
// short list and lookups take the most recent call. Keys are
// decoder.IDKey's: a server may echo an id or token in another JSON form.
type registry struct {
	mu      sync.Mutex
	byID    map[string][]*call
	byToken map[string][]*call
}

// maxPerKey bounds how many in-flight calls share one id or token.
const maxPerKey = 64

func newRegistry() *registry {
	return &registry{byID: make(map[string][]*call), byToken: make(map[string][]*call)}
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

func (r *registry) latestByID(key string) *call    { return r.latest(r.byID, key) }
func (r *registry) latestByToken(key string) *call { return r.latest(r.byToken, key) }

func (r *registry) latest(m map[string][]*call, key string) *call {
	if key == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if list := m[key]; len(list) > 0 {
		return list[len(list)-1]
	}
	return nil
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
