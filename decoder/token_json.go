package decoder

import (
	"encoding/json"
	"math/bits"
	"strconv"
)

// A token's header and claims are small JSON objects of plain values, read
// once per call on the tap's path. encoding/json's generic decode spends an
// allocation on every key, string and number; the reader here takes keys and
// strings as substrings of one string and sizes each map once. It accepts a
// strict subset of JSON (no escapes, ASCII strings, nesting up to
// maxFastDepth) and hands anything else to encoding/json, so every input
// decodes to exactly what json.Unmarshal gives (duplicate keys included: the
// last one wins in both). FuzzTokenJSONFastPath checks the two agree.

const (
	maxFastDepth  = 16
	maxFastFields = 32 // more keys in one object: encoding/json
)

// decodeObjectString decodes a JSON object, or returns nil for anything else.
func decodeObjectString(s string) map[string]any {
	if m, ok := fastObject(s); ok {
		return m
	}
	return decodeObject([]byte(s))
}

// memberList receives an object's members in their order in the text,
// repeats included: each key and its value as the map holds it (the
// caller's buffers, so that the caller reads the members without hashing).
// It is passed and returned by value, never stored through a pointer, so
// that the buffers stay on the caller's stack.
type memberList struct {
	keys   []string
	values []any
	// claims, when set, takes the top-level members the checks read
	// (tokenClaims.take) as they are decoded; the registered claims among
	// them are then left out of keys and values.
	claims *tokenClaims
}

// decodeObjectMembers is decodeObjectString that also appends the object's
// members to into; known is false when encoding/json decoded it (into is
// then left empty and the caller reads the map instead).
func decodeObjectMembers(s string, into memberList) (m map[string]any, _ memberList, known bool) {
	r := fastReader{s: s}
	r.space()
	if r.i < len(s) && s[r.i] == '{' {
		m, all, ok := r.objectMembers(0, into)
		if r.space(); ok && r.i == len(s) {
			return m, all, true
		}
	}
	return decodeObject([]byte(s)), memberList{into.keys[:0], into.values[:0], into.claims}, false
}

// decodeObject decodes a JSON object with encoding/json, or returns nil for
// anything else. Decoding into an interface takes encoding/json's generic
// path, which builds the map without reflection (a map[string]any target
// costs twice the allocations); duplicate keys and every value come out the
// same.
func decodeObject(b []byte) map[string]any {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

// fastObject reads s as one JSON object; ok is false when s is outside the
// subset (the caller then uses encoding/json, which also judges errors).
func fastObject(s string) (map[string]any, bool) {
	r := fastReader{s: s}
	return r.topObject()
}

func (r *fastReader) topObject() (map[string]any, bool) {
	s := r.s
	r.space()
	if r.i >= len(s) || s[r.i] != '{' {
		return nil, false
	}
	v, ok := r.value(0)
	r.space()
	if !ok || r.i != len(s) {
		return nil, false
	}
	m, _ := v.(map[string]any)
	return m, true
}

type fastReader struct {
	s string
	i int
	// watchKey: the text of this top-level key's value, when the last one
	// is a number, is kept in watchText (a progressToken's digits).
	watchKey, watchText string
}

func (r *fastReader) space() { r.i = skipSpace(r.s, r.i) }

func (r *fastReader) value(depth int) (any, bool) {
	if r.i >= len(r.s) || depth > maxFastDepth {
		return nil, false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		s, ok := r.str()
		return internedValue(s), ok
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(r.s)-r.i >= len(lit.text) && r.s[r.i:r.i+len(lit.text)] == lit.text {
			r.i += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

// fastField is an object's member until its map is built: a string or a
// number is kept as its text until then.
type fastField struct {
	key, text string
	v         any
	kind      fieldKind
}

type fieldKind uint8

const (
	boxedValue  fieldKind = iota // v
	stringValue                  // text is the string
	numberValue                  // text is the number's JSON text
)

// fieldValue reads a member's value at r.i.
func (r *fastReader) fieldValue(depth int) (fastField, bool) {
	if r.i < len(r.s) && depth <= maxFastDepth {
		switch c := r.s[r.i]; {
		case c == '"':
			s, ok := r.str()
			if v, interned := internedString(s); interned {
				return fastField{v: v}, ok
			}
			return fastField{text: s, kind: stringValue}, ok
		case c == '-' || c >= '0' && c <= '9':
			j, ok := numberEnd(r.s, r.i)
			text := r.s[r.i:j]
			r.i = j
			return fastField{text: text, kind: numberValue}, ok
		}
	}
	v, ok := r.value(depth)
	return fastField{v: v}, ok
}

// objectMap builds an object's map from its members and appends them to
// into (when it has buffers); ok is false for a number out of float64's
// range (left to encoding/json). Each string or number is boxed as any
// boxes it (one allocation each): building interface values over shared
// memory by hand would rely on the runtime's layout of an interface.
func objectMap(fields []fastField, into memberList) (map[string]any, memberList, bool) {
	m := make(map[string]any, len(fields))
	for i := range fields {
		f := &fields[i]
		v := f.v
		switch f.kind {
		case stringValue:
			v = f.text
		case numberValue:
			x, ok := parseNumber(f.text)
			if !ok {
				return nil, into, false
			}
			v = x
		}
		m[f.key] = v // a repeated key: the last one wins, as in encoding/json
		if into.keys != nil && (into.claims == nil || !into.claims.take(f.key, v)) {
			into.keys, into.values = append(into.keys, f.key), append(into.values, v)
		}
	}
	return m, into, true
}

func (r *fastReader) object(depth int) (any, bool) {
	m, _, ok := r.objectMembers(depth, memberList{})
	return m, ok
}

// objectMembers reads the fields first, then makes a map of exactly their
// number; it appends the members to into, when into has buffers. into is
// a parameter, not a field of the reader, so that a caller's buffers stay
// on its stack (the reader's text escapes into the maps).
func (r *fastReader) objectMembers(depth int, into memberList) (map[string]any, memberList, bool) {
	var buf [maxFastFields]fastField
	fields := buf[:0]
	r.i++ // {
	r.space()
	if r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
		return map[string]any{}, into, true
	}
	for {
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != '"' || len(fields) == maxFastFields {
			return nil, into, false
		}
		k, ok := r.str()
		if !ok {
			return nil, into, false
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return nil, into, false
		}
		r.i++
		r.space()
		f, ok := r.fieldValue(depth + 1)
		if !ok {
			return nil, into, false
		}
		if depth == 0 && r.watchKey != "" && k == r.watchKey {
			r.watchText = ""
			if f.kind == numberValue {
				r.watchText = f.text
			}
		}
		f.key = k
		fields = append(fields, f)
		r.space()
		if r.i >= len(r.s) {
			return nil, into, false
		}
		if r.s[r.i] == '}' {
			r.i++
			break
		}
		if r.s[r.i] != ',' {
			return nil, into, false
		}
		r.i++
	}
	return objectMap(fields, into)
}

func (r *fastReader) array(depth int) (any, bool) {
	var buf [maxFastFields]any
	items := buf[:0]
	r.i++ // [
	r.space()
	if r.i < len(r.s) && r.s[r.i] == ']' {
		r.i++
		return []any{}, true
	}
	for {
		r.space()
		if len(items) == maxFastFields {
			return nil, false
		}
		v, ok := r.value(depth + 1)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		r.space()
		if r.i >= len(r.s) {
			return nil, false
		}
		if r.s[r.i] == ']' {
			r.i++
			break
		}
		if r.s[r.i] != ',' {
			return nil, false
		}
		r.i++
	}
	return append([]any(nil), items...), true
}

// str reads a string without escapes of printable ASCII (what a token's
// values are); anything else is left to encoding/json.
func (r *fastReader) str() (string, bool) {
	start := r.i + 1
	j := start
	// Eight bytes at a time while none is special (the values are mostly
	// ids of a few dozen characters); the word holding the first special
	// byte says where it is, so the loop below starts on it.
	for ; j+8 <= len(r.s); j += 8 {
		w := r.s[j : j+8]
		if m := specialBytes(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56); m != 0 {
			j += bits.TrailingZeros64(m) / 8
			break
		}
	}
	for ; j < len(r.s); j++ {
		switch c := r.s[j]; {
		case c == '"':
			r.i = j + 1
			return r.s[start:j], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

// specialBytes marks, in the top bit of each byte, the bytes of x (8 bytes,
// little-endian) that end or escape a quick string: '"', '\\', control
// characters, anything outside ASCII (the word tests of "Bit Twiddling
// Hacks": a byte is zero, or below n, where the borrow reaches its top bit).
// A borrow can mark a byte after a special one, never before: the lowest
// mark is the first special byte.
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	special := (x - ones*0x20) | (quote-ones)&^quote | (backslash-ones)&^backslash
	return (special | x) & highs
}

// parseNumber is strconv.ParseFloat(text, 64) for a JSON number's text;
// whole numbers of up to 15 digits (a token's times) are converted
// directly, exactly as ParseFloat rounds them (they are below 2^53).
func parseNumber(text string) (float64, bool) {
	if len(text) <= 15 {
		var n uint64
		i := 0
		for ; i < len(text) && text[i] >= '0' && text[i] <= '9'; i++ {
			n = n*10 + uint64(text[i]-'0')
		}
		if i == len(text) && i > 0 {
			return float64(n), true
		}
	}
	x, err := strconv.ParseFloat(text, 64)
	return x, err == nil
}

// number reads a JSON number (RFC 8259 grammar) as encoding/json does:
// strconv.ParseFloat of its text; one out of float64's range is left to
// encoding/json.
func (r *fastReader) number() (any, bool) {
	start := r.i
	j, ok := numberEnd(r.s, start)
	if !ok {
		return nil, false
	}
	f, ok := parseNumber(r.s[start:j])
	if !ok {
		return nil, false
	}
	r.i = j
	return f, true
}

// internedValue boxes the values every token repeats (iss, protocol, alg,
// typ) as constants, which costs no allocation.
func internedValue(s string) any {
	if v, ok := internedString(s); ok {
		return v
	}
	return s
}

// internedString is s boxed as a constant, when it is one of those.
func internedString(s string) (any, bool) {
	switch s {
	case TokenIssuer:
		return TokenIssuer, true
	case contextProtocolMajor:
		return contextProtocolMajor, true
	case TokenAlg:
		return TokenAlg, true
	case "JWT":
		return "JWT", true
	}
	return nil, false
}
