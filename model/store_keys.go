package model

// The keys a call is joined on are the store's: the first three, with
// their hashes, are held in the call's entry (one allocation and one
// retained object less a call than a slice of its own), any more (a call
// merged from two) in the call's keys, append-only like its other slices.
//
// Every key of a live entry names it in the index: keys go into the index
// and the entry together, merge moves them all to the survivor, and drop
// removes only a dead entry's.

const inlineKeys = 3

// addKey records k (of hash h) as one of e's keys and returns its number;
// c is e's call, made mutable.
func (e *entry) addKey(c *Call, k CallKey, h uint64) uint32 {
	if e.nKeys < inlineKeys {
		e.keyBuf[e.nKeys], e.keyHash[e.nKeys] = k, h
		e.nKeys++
		return uint32(e.nKeys - 1)
	}
	c.keys = append(c.keys, k)
	return uint32(inlineKeys + len(c.keys) - 1)
}

// keyAt is e's key number i.
func (e *entry) keyAt(i uint32) CallKey {
	if i < inlineKeys {
		return e.keyBuf[i]
	}
	return e.call.keys[i-inlineKeys]
}

// hashAt is the hash of e's key number i.
func (e *entry) hashAt(x *keyIndex, i uint32) uint64 {
	if i < inlineKeys {
		return e.keyHash[i]
	}
	return x.hash(e.keyAt(i))
}

func (e *entry) numKeys() uint32 { return uint32(e.nKeys) + uint32(len(e.call.keys)) }

// hasKey says whether k is one of e's keys (so it names e).
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
