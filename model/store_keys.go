package model

// The keys a call is joined on are the store's: the first three are held
// in the call's entry (one allocation and one retained object less a call
// than a slice of its own), any more (a call merged from two) in the
// call's keys, append-only like its other slices.
//
// Every key of a live entry maps to it in the store's map: keys go into
// the map and the entry together, merge moves them all to the survivor,
// and drop removes only a dead entry's.

// addKey records k as one of e's keys; c is e's call, made mutable.
func (e *entry) addKey(c *Call, k CallKey) {
	if int(e.nKeys) < len(e.keyBuf) {
		e.keyBuf[e.nKeys] = k
		e.nKeys++
		return
	}
	c.keys = append(c.keys, k)
}

// hasKey says whether k is one of e's keys (so it maps to e).
func (e *entry) hasKey(k CallKey) bool {
	for _, o := range e.keyBuf[:e.nKeys] {
		if o == k {
			return true
		}
	}
	for _, o := range e.call.keys {
		if o == k {
			return true
		}
	}
	return false
}

// eachKey calls f with each of e's keys, in the order they were added.
func (e *entry) eachKey(f func(CallKey)) {
	for _, k := range e.keyBuf[:e.nKeys] {
		f(k)
	}
	for _, k := range e.call.keys {
		f(k)
	}
}
