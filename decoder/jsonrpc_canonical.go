package decoder

import (
	"bytes"
	"unicode/utf8"
)

// A tools/call's arguments are compared by value across calls (a retry
// sends the same arguments): decoded with UseNumber, every number replaced
// by its IDKey, then written by json.Marshal, whose map keys come sorted.
// That costs a decode into maps and a reflective encode per call; the
// writer here produces the same bytes in one walk for the common shape and
// leaves the rest to the caller's encoding/json path.

const (
	maxCanonDepth   = 64
	maxCanonMembers = 32 // more members in one object: encoding/json
)

// AppendCanonicalJSON appends to dst what json.Marshal writes for raw
// decoded into an interface with UseNumber, each json.Number replaced by
// IDKey of its text. ok is false when raw is outside the subset read here
// (escapes other than \" \\ \/ \b \f \n \r \t in strings, any escape in a
// key, '<', '>', '&', U+2028, U+2029 or invalid UTF-8 in a string, deeper
// nesting or larger objects than the bounds above, invalid JSON, anything
// after the value); the caller then takes encoding/json's path.
func AppendCanonicalJSON(dst, raw []byte) ([]byte, bool) {
	r := envelopeReader{s: raw}
	r.space()
	dst, ok := appendCanonicalValue(dst, &r, 0)
	return dst, ok && r.end()
}

func appendCanonicalValue(dst []byte, r *envelopeReader, depth int) ([]byte, bool) {
	if r.i >= len(r.s) || depth > maxCanonDepth {
		return dst, false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return appendCanonicalObject(dst, r, depth)
	case c == '[':
		return appendCanonicalArray(dst, r, depth)
	case c == '"':
		return appendCanonicalString(dst, r, false)
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		if !r.skipNumber() {
			return dst, false
		}
		dst = append(dst, '"')
		dst = appendNumberKey(dst, r.s[start:r.i])
		return append(dst, '"'), true
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(r.s)-r.i >= len(lit) && string(r.s[r.i:r.i+len(lit)]) == lit {
			r.i += len(lit)
			return append(dst, lit...), true
		}
	}
	return dst, false
}

func appendCanonicalArray(dst []byte, r *envelopeReader, depth int) ([]byte, bool) {
	dst = append(dst, '[')
	r.i++ // [
	r.space()
	if r.at(']') {
		r.i++
		return append(dst, ']'), true
	}
	for {
		r.space()
		var ok bool
		if dst, ok = appendCanonicalValue(dst, r, depth+1); !ok {
			return dst, false
		}
		r.space()
		switch {
		case r.at(','):
			r.i++
			dst = append(dst, ',')
		case r.at(']'):
			r.i++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// canonMember is one member of an object: its key and its value's text.
type canonMember struct {
	key, value []byte
}

// appendCanonicalObject writes the members sorted by key, the last of
// repeated keys winning, as a decoded map comes out of json.Marshal.
func appendCanonicalObject(dst []byte, r *envelopeReader, depth int) ([]byte, bool) {
	var buf [maxCanonMembers]canonMember
	members := buf[:0]
	r.i++ // {
	r.space()
	for !r.at('}') {
		if len(members) == maxCanonMembers || !r.at('"') {
			return dst, false
		}
		key, ok := plainKey(r)
		if !ok {
			return dst, false
		}
		r.space()
		if !r.at(':') {
			return dst, false
		}
		r.i++
		r.space()
		start := r.i
		if !r.skipValue(depth + 1) {
			return dst, false
		}
		// Insertion keeps equal keys in their order: the last one wins below.
		m := canonMember{key, r.s[start:r.i]}
		j := len(members)
		members = append(members, m)
		for ; j > 0 && bytes.Compare(members[j-1].key, key) > 0; j-- {
			members[j] = members[j-1]
		}
		members[j] = m
		r.space()
		if r.at(',') {
			r.i++
			r.space()
			if r.at('}') {
				return dst, false // a trailing comma
			}
		} else if !r.at('}') {
			return dst, false
		}
	}
	r.i++ // }
	dst = append(dst, '{')
	first := true
	for i, m := range members {
		if i+1 < len(members) && bytes.Equal(members[i+1].key, m.key) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, m.key...)
		dst = append(dst, '"', ':')
		v := envelopeReader{s: m.value}
		var ok bool
		if dst, ok = appendCanonicalValue(dst, &v, depth+1); !ok || v.i != len(m.value) {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// plainKey reads a key json.Marshal writes as it is: no escape, nothing it
// would escape.
func plainKey(r *envelopeReader) ([]byte, bool) {
	start := r.i
	if _, ok := appendCanonicalString(nil, r, true); !ok {
		return nil, false
	}
	return r.s[start+1 : r.i-1], true
}

// appendCanonicalString writes the string at r as json.Marshal writes its
// decoded value (with HTML escaping); keyOnly accepts no escape and writes
// nothing.
func appendCanonicalString(dst []byte, r *envelopeReader, keyOnly bool) ([]byte, bool) {
	if !keyOnly {
		dst = append(dst, '"')
	}
	s := r.s
	for j := r.i + 1; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			r.i = j + 1
			if keyOnly {
				return dst, true
			}
			return append(dst, '"'), true
		case c == '\\':
			if keyOnly || j+1 >= len(s) {
				return dst, false
			}
			switch e := s[j+1]; e {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				dst = append(dst, '\\', e)
			case '/':
				dst = append(dst, '/')
			default:
				return dst, false // \u: decoded, it may need writing otherwise
			}
			j += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return dst, false
		case c < utf8.RuneSelf:
			if !keyOnly {
				dst = append(dst, c)
			}
			j++
		default:
			ru, size := utf8.DecodeRune(s[j:])
			if ru == utf8.RuneError && size == 1 || ru == '\u2028' || ru == '\u2029' {
				return dst, false
			}
			if !keyOnly {
				dst = append(dst, s[j:j+size]...)
			}
			j += size
		}
	}
	return dst, false
}
