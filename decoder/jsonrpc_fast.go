package decoder

import (
	"bytes"
	"encoding/json"
)

// Every call through the tap decodes one JSON-RPC envelope. encoding/json
// scans the text twice (a validity pass, then the decode) and reflects over
// wireMessage; the reader here reads the common shape in one pass: lowercase
// member names, ASCII jsonrpc and method without escapes, and values whose
// JSON it checks as encoding/json's validity pass does. Anything else (a
// member name differing only in case, an escape in jsonrpc or method,
// nesting deeper than maxEnvelopeDepth, any syntax error) goes to
// encoding/json, which also writes every error, so the result is always
// exactly what json.Unmarshal gives (FuzzEnvelopeFastPath checks it).

const maxEnvelopeDepth = 64

// fastWireMessage decodes raw (trimmed, starting with '{') as json.Unmarshal
// into a wireMessage would; ok is false when raw is outside the fast path.
func fastWireMessage(raw []byte) (w wireMessage, ok bool) {
	// One copy of the message holds every member's value (each cut to its
	// length, so appending to one cannot write over the next).
	raw = clone(raw)
	r := envelopeReader{s: raw}
	r.i++ // {
	r.space()
	if r.at('}') {
		r.i++
		return w, r.end()
	}
	for {
		r.space()
		key, ok := r.plainBytes()
		if !ok {
			return w, false
		}
		r.space()
		if !r.at(':') {
			return w, false
		}
		r.i++
		r.space()
		start := r.i
		if !r.skipValue(0) {
			return w, false
		}
		if !w.set(key, raw[start:r.i:r.i]) {
			return w, false
		}
		r.space()
		switch {
		case r.at(','):
			r.i++
		case r.at('}'):
			r.i++
			return w, r.end()
		default:
			return w, false
		}
	}
}

var envelopeMembers = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// set stores one member's value (v, the message's own copy) as
// json.Unmarshal would; false leaves the message to encoding/json.
func (w *wireMessage) set(key, v []byte) bool {
	isNull := string(v) == "null"
	switch string(key) {
	case "id":
		w.ID = json.RawMessage(v)
	case "params":
		w.Params = json.RawMessage(v)
	case "result":
		w.Result = json.RawMessage(v)
	case "error":
		w.Error = nil
		if !isNull {
			e := json.RawMessage(v)
			w.Error = &e
		}
	case "jsonrpc", "method":
		var s *string
		if !isNull {
			r := envelopeReader{s: v}
			text, ok := r.plainBytes()
			if !ok || r.i != len(v) {
				return false // not a string, or one with escapes or non-ASCII
			}
			s = internedText(text)
		}
		if string(key) == "jsonrpc" {
			w.JSONRPC = s
		} else {
			w.Method = s
		}
	default:
		for _, m := range envelopeMembers {
			if bytes.EqualFold(key, []byte(m)) {
				return false // encoding/json matches member names regardless of case
			}
		}
	}
	return true
}

// The jsonrpc version and the methods every session sends, shared rather
// than built per message (callers only read them).
var (
	jsonrpcVersion   = "2.0"
	methodToolsCall  = MethodToolsCall
	methodCancelled  = "notifications/cancelled"
	methodProgress   = "notifications/progress"
	methodInitialize = "initialize"
	methodToolsList  = "tools/list"
	methodPing       = "ping"
)

// internedText points at the shared copy of a known text, or a new one.
func internedText(b []byte) *string {
	switch string(b) {
	case jsonrpcVersion:
		return &jsonrpcVersion
	case methodToolsCall:
		return &methodToolsCall
	case methodCancelled:
		return &methodCancelled
	case methodProgress:
		return &methodProgress
	case methodInitialize:
		return &methodInitialize
	case methodToolsList:
		return &methodToolsList
	case methodPing:
		return &methodPing
	}
	s := string(b)
	return &s
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

type envelopeReader struct {
	s []byte
	i int
}

func (r *envelopeReader) at(c byte) bool { return r.i < len(r.s) && r.s[r.i] == c }

func (r *envelopeReader) end() bool { r.space(); return r.i == len(r.s) }

func (r *envelopeReader) space() { r.i = skipSpace(r.s, r.i) }

// plainBytes reads a string of printable ASCII without escapes: the text
// between its quotes.
func (r *envelopeReader) plainBytes() ([]byte, bool) {
	if !r.at('"') {
		return nil, false
	}
	for j := r.i + 1; j < len(r.s); j++ {
		switch c := r.s[j]; {
		case c == '"':
			s := r.s[r.i+1 : j]
			r.i = j + 1
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// skipValue passes over one JSON value, checking it as encoding/json's
// validity pass does (strings: no control characters, valid escapes; bytes
// of 0x80 and above are accepted there as here).
func (r *envelopeReader) skipValue(depth int) bool {
	if r.i >= len(r.s) || depth > maxEnvelopeDepth {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '{' || c == '[':
		return r.skipContainer(depth)
	case c == '"':
		return r.skipString()
	case c == '-' || c >= '0' && c <= '9':
		return r.skipNumber()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(r.s)-r.i >= len(lit) && string(r.s[r.i:r.i+len(lit)]) == lit {
			r.i += len(lit)
			return true
		}
	}
	return false
}

func (r *envelopeReader) skipContainer(depth int) bool {
	object := r.s[r.i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	r.i++
	r.space()
	if r.at(closing) {
		r.i++
		return true
	}
	for {
		r.space()
		if object {
			if !r.at('"') || !r.skipString() {
				return false
			}
			r.space()
			if !r.at(':') {
				return false
			}
			r.i++
			r.space()
		}
		if !r.skipValue(depth + 1) {
			return false
		}
		r.space()
		switch {
		case r.at(','):
			r.i++
		case r.at(closing):
			r.i++
			return true
		default:
			return false
		}
	}
}

func (r *envelopeReader) skipString() bool {
	for j := r.i + 1; j < len(r.s); j++ {
		if j = plainRun(r.s, j); j >= len(r.s) {
			return false
		}
		switch c := r.s[j]; {
		case c == '"':
			r.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(r.s) {
				return false
			}
			switch r.s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(r.s, j+1); !ok || j+4 >= len(r.s) {
					return false
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber passes over a number of RFC 8259's grammar.
func (r *envelopeReader) skipNumber() bool {
	j, ok := numberEnd(r.s, r.i)
	if ok {
		r.i = j
	}
	return ok
}

// fastCallParams reads a tools/call params object (trimmed, starting with
// '{') as json.Unmarshal into ParseCallParams' struct would when name is a
// plain string: arguments copied, _meta left in place (the caller reads it
// into fresh values). ok is false outside the fast path.
func fastCallParams(p []byte) (name string, args, meta []byte, ok bool) {
	r := envelopeReader{s: p}
	r.i++ // {
	hasName := false
	for {
		r.space()
		if r.at('}') && r.i == 1 {
			break
		}
		key, ok := r.plainBytes()
		if !ok {
			return "", nil, nil, false
		}
		r.space()
		if !r.at(':') {
			return "", nil, nil, false
		}
		r.i++
		r.space()
		start := r.i
		if !r.skipValue(0) {
			return "", nil, nil, false
		}
		v := p[start:r.i]
		switch string(key) {
		case "name":
			vr := envelopeReader{s: v}
			text, ok := vr.plainBytes()
			if !ok || vr.i != len(v) {
				return "", nil, nil, false
			}
			name, hasName = string(text), true
		case "arguments":
			args = clone(v)
		case "_meta":
			meta = v
		default:
			for _, m := range [...]string{"name", "arguments", "_meta"} {
				if bytes.EqualFold(key, []byte(m)) {
					return "", nil, nil, false
				}
			}
		}
		r.space()
		if r.at(',') {
			r.i++
			continue
		}
		if !r.at('}') {
			return "", nil, nil, false
		}
		break
	}
	r.i++
	return name, args, meta, hasName && r.end()
}
