package model

// The keys a call is joined on are the store's, held in the call's entry:
// the first three, with their hashes, inline (one allocation and one
// retained object less a call than a slice of its own), any more (a call
// merged from two) out of line.
//
// Every key of a live entry names it in the index: keys go into the index
// and the entry together, merge moves them all to the survivor, and drop
// removes only a dead entry's.

const inlineKeys = 3

// addKey records k (of hash h) as one of e's keys and returns its number.
func (e *entry) addKey(k CallKey, h uint64) uint32 {
	if e.nKeys < inlineKeys {
		e.keyBuf[e.nKeys], e.keyHash[e.nKeys] = k, h
		e.nKeys++
		return uint32(e.nKeys - 1)
	}
	if e.more == nil {
		e.more = new([]CallKey)
	}
	*e.more = append(*e.more, k)
	return uint32(inlineKeys + len(*e.more) - 1)
}

// keyAt is e's key number i.
func (e *entry) keyAt(i uint32) CallKey {
	if i < inlineKeys {
		return e.keyBuf[i]
	}
	return (*e.more)[i-inlineKeys]
}

// hashAt is the hash of e's key number i.
func (e *entry) hashAt(x *keyIndex, i uint32) uint64 {
	if i < inlineKeys {
		return e.keyHash[i]
	}
	return x.hash(e.keyAt(i))
}

func (e *entry) numKeys() uint32 { return uint32(e.nKeys) + uint32(len(e.moreKeys())) }

// moreKeys are e's keys past its inline three.
func (e *entry) moreKeys() []CallKey {
	if e.more == nil {
		return nil
	}
	return *e.more
}

// hasKey says whether k is one of e's keys (so it names e).
func (e *entry) hasKey(k CallKey) bool {
	for _, o := range e.keyBuf[:e.nKeys] {
		if o == k {
			return true
		}
	}
	for _, o := range e.moreKeys() {
		if o == k {
			return true
		}
	}
	return false
}
