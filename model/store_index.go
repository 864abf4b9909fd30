package model

import "hash/maphash"

// keyIndex finds the entry a join key names. A map keyed by CallKey hashes
// two strings on every lookup, insert and delete, and an eviction deletes
// keys of a call long out of cache; here each key is
// hashed once per event, an entry keeps its keys' hashes for its eviction,
// and the map's slots are 24 bytes, not 48.
//
// byHash holds, per hash, the entry and the index of its key that has the
// slot; a key whose hash another key holds (a 64-bit collision) is kept in
// clash instead. A lookup checks the slot's key, then clash.
type keyIndex struct {
	seed   maphash.Seed
	byHash map[uint64]keySlot
	clash  map[CallKey]*entry // nil until a collision
}

type keySlot struct {
	e *entry
	i uint32 // which of e's keys (see entry.keyAt)
}

func newKeyIndex() keyIndex {
	return keyIndex{seed: maphash.MakeSeed(), byHash: make(map[uint64]keySlot)}
}

func (x *keyIndex) hash(k CallKey) uint64 {
	h := maphash.String(x.seed, k.a)
	h = h*0x9e3779b97f4a7c15 ^ maphash.String(x.seed, k.b)
	return h*0x9e3779b97f4a7c15 ^ uint64(k.kind)
}

func (x *keyIndex) len() int { return len(x.byHash) + len(x.clash) }

// get is the entry k names, or nil.
func (x *keyIndex) get(k CallKey, h uint64) *entry {
	if s, ok := x.byHash[h]; ok && s.e.keyAt(s.i) == k {
		return s.e
	}
	if x.clash != nil {
		return x.clash[k]
	}
	return nil
}

// put makes k, e's key number i, name e.
func (x *keyIndex) put(k CallKey, h uint64, e *entry, i uint32) {
	if s, ok := x.byHash[h]; ok && s.e.keyAt(s.i) != k {
		if x.clash == nil {
			x.clash = make(map[CallKey]*entry)
		}
		x.clash[k] = e
		return
	}
	x.byHash[h] = keySlot{e, i}
	if len(x.clash) > 0 {
		delete(x.clash, k) // it may have been a clash when its slot was taken
	}
}

// del forgets k (which must name a live entry).
func (x *keyIndex) del(k CallKey, h uint64) {
	if s, ok := x.byHash[h]; ok && s.e.keyAt(s.i) == k {
		delete(x.byHash, h)
		return
	}
	delete(x.clash, k)
}
