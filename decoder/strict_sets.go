package decoder

import "bytes"

// The strict walk remembers the keys of one object to find a repeated one.
// Objects hold a few keys: the first ones are compared in a small array
// (no map, no allocation), the rest go to a map.
const fewKeys = 16

// foldSet is a set of keys under Unicode simple case folding: find gives
// the key added that folds equal to key, as a map by foldKey would. Keys
// are the walk's slices of the body (or decoded copies), never changed.
type foldSet struct {
	few    [fewKeys][]byte // ASCII keys
	n      int
	folded map[string][]byte // foldKey => as spelled, for the others
}

func (s *foldSet) find(key []byte) ([]byte, bool) {
	ascii := isASCII(key)
	for _, k := range s.few[:s.n] {
		// Two ASCII keys fold equal only at the same length.
		if (len(k) == len(key) || !ascii) && bytes.EqualFold(k, key) {
			return k, true
		}
	}
	if s.folded != nil {
		prev, ok := s.folded[foldKey(string(key))]
		return prev, ok
	}
	return nil, false
}

// add records a key find did not find.
func (s *foldSet) add(key []byte) {
	if s.n < fewKeys && isASCII(key) {
		s.few[s.n] = key
		s.n++
		return
	}
	if s.folded == nil {
		s.folded = make(map[string][]byte)
	}
	s.folded[foldKey(string(key))] = key
}

// exactSet is a set of keys compared byte for byte.
type exactSet struct {
	few  [fewKeys][]byte
	n    int
	many map[string]bool
}

func (s *exactSet) has(key []byte) bool {
	for _, k := range s.few[:s.n] {
		if bytes.Equal(k, key) {
			return true
		}
	}
	return s.many[string(key)]
}

// add records a key has did not find (key stays unchanged while the set is used).
func (s *exactSet) add(key []byte) {
	if s.n < fewKeys {
		s.few[s.n] = key
		s.n++
		return
	}
	if s.many == nil {
		s.many = make(map[string]bool)
	}
	s.many[string(key)] = true
}
