package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
)

// walker reads a JSON text that encoding/json has already found valid, so
// it only needs to find where things start and end. It stops at the first
// ambiguity (found).
type walker struct {
	b     []byte
	i     int
	id    json.RawMessage // the first message's id, when read without doubt
	found *Ambiguity
}

// errStop ends a walk once found is set.
var errStop = errors.New("ambiguous")

func (w *walker) fail(code int, reason string, id json.RawMessage) error {
	w.found = &Ambiguity{RPCCode: code, Reason: reason, ID: id}
	return errStop
}

// top walks the text: a message or a batch of them (anything else has no
// keys that matter).
func (w *walker) top() *Ambiguity {
	w.ws()
	var err error
	switch w.b[w.i] {
	case '{':
		err = w.message()
	case '[':
		err = w.batch()
	}
	if err != nil {
		return w.found
	}
	return nil
}

func (w *walker) batch() error {
	w.i++ // [
	for {
		w.ws()
		switch w.b[w.i] {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
			continue
		case '{':
			if err := w.message(); err != nil {
				return err
			}
		default:
			w.skip()
		}
	}
}

// message reads one message object.
func (w *walker) message() error {
	var seen [6]bool
	var id json.RawMessage
	idOK := true
	err := w.members(func(key []byte) error {
		i, exact := lookupKey(messageKeys, key)
		if i >= 0 {
			problem := ""
			if !exact {
				problem = "key " + quoteKey(string(key)) + " differs from " + quoteKey(messageKeys[i]) + " only in case"
			} else if seen[i] {
				problem = "key " + quoteKey(string(key)) + " appears twice"
			}
			if problem != "" {
				if i == 1 || !idOK { // a doubtful id is answered as null
					return w.fail(CodeInvalidRequest, problem, nil)
				}
				return w.fail(CodeInvalidRequest, problem, id)
			}
			seen[i] = true
		}
		switch i {
		case 1: // id
			start := w.i
			w.skip()
			id = json.RawMessage(w.b[start:w.i])
			switch c := id[0]; {
			case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
			default:
				id, idOK = nil, false
			}
		case 3: // params
			if err := w.params(); err != nil {
				if idOK {
					w.found.ID = id
				}
				return err
			}
		default:
			w.skip()
		}
		return nil
	})
	if err == nil && idOK && w.id == nil {
		w.id = id
	}
	return err
}

// params reads a params value: an object's name, _meta and arguments must
// each be spelled once, exactly.
func (w *walker) params() error {
	if w.b[w.i] != '{' {
		w.skip()
		return nil
	}
	var seen [3]bool
	return w.members(func(key []byte) error {
		i, exact := lookupKey(paramsKeys, key)
		if i >= 0 {
			if !exact {
				return w.fail(CodeInvalidParams, "params key "+quoteKey(string(key))+" differs from "+quoteKey(paramsKeys[i])+" only in case", nil)
			}
			if seen[i] {
				return w.fail(CodeInvalidParams, "params key "+quoteKey(string(key))+" appears twice", nil)
			}
			seen[i] = true
		}
		if i == 1 {
			return w.meta()
		}
		w.skip()
		return nil
	})
}

// meta reads a _meta value: its context keys (progressToken and the
// agentarea/* keys) must each be spelled once, exactly.
func (w *walker) meta() error {
	if w.b[w.i] != '{' {
		w.skip()
		return nil
	}
	var seen foldSet
	return w.members(func(key []byte) error {
		// The key is converted for the checks only (no copy is kept).
		if reason := contextKeySpelling(string(key)); reason != "" {
			return w.fail(CodeInvalidParams, "_meta key "+quoteKey(string(key))+" "+reason, nil)
		}
		if isContextKey(string(key)) {
			if prev, dup := seen.find(key); dup {
				if bytes.Equal(prev, key) {
					return w.fail(CodeInvalidParams, "_meta key "+quoteKey(string(key))+" appears twice", nil)
				}
				return w.fail(CodeInvalidParams, "_meta keys "+quoteKey(string(prev))+" and "+quoteKey(string(key))+" differ only in case", nil)
			}
			seen.add(key)
			return w.uniqueKeys(key)
		}
		w.skip()
		return nil
	})
}

// uniqueKeys reads a context value: no object in it may hold a key twice
// (parsers keep the first or the last; the token was checked against one).
func (w *walker) uniqueKeys(metaKey []byte) error {
	switch w.b[w.i] {
	case '[':
		w.i++
		for {
			w.ws()
			switch w.b[w.i] {
			case ']':
				w.i++
				return nil
			case ',':
				w.i++
				continue
			}
			if err := w.uniqueKeys(metaKey); err != nil {
				return err
			}
		}
	case '{':
		var keys exactSet
		return w.members(func(key []byte) error {
			if keys.has(key) {
				return w.fail(CodeInvalidParams, "_meta "+quoteKey(string(metaKey))+" holds key "+quoteKey(string(key))+" twice", nil)
			}
			keys.add(key)
			return w.uniqueKeys(metaKey)
		})
	}
	w.skip()
	return nil
}

// members calls fn with the key of each member of the object at w.i, the
// walker on its value; fn consumes the value.
func (w *walker) members(fn func(key []byte) error) error {
	w.i++ // {
	for {
		w.ws()
		switch w.b[w.i] {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			continue
		}
		key := w.key()
		w.ws()
		w.i++ // :
		w.ws()
		if err := fn(key); err != nil {
			return err
		}
	}
}

// key reads a string at w.i and returns it decoded.
func (w *walker) key() []byte {
	start := w.i
	raw := w.str()
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var s string
	json.Unmarshal(w.b[start:w.i], &s) // valid: the text passed json.Valid
	return []byte(s)
}

// str reads the string at w.i and returns what is between its quotes.
func (w *walker) str() []byte {
	start := w.i + 1
	i := start
	for {
		// The text is valid: a plain run ends at a quote or a backslash.
		i = plainRun(w.b, i)
		if w.b[i] == '\\' {
			i += 2
			continue
		}
		w.i = i + 1
		return w.b[start:i]
	}
}

// skip moves past the value at w.i.
func (w *walker) skip() {
	switch w.b[w.i] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for {
			w.i = nextStructural(w.b, w.i)
			switch w.b[w.i] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			default:
				depth--
			}
			w.i++
			if depth == 0 {
				return
			}
		}
	default: // a number or a literal
		for w.i < len(w.b) && !isDelimiter(w.b[w.i]) {
			w.i++
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func (w *walker) ws() { w.i = skipSpace(w.b, w.i) }

// nextStructural is the index of the next quote or bracket from b[i]
// (bytes.IndexAny would build its set of bytes on every call). The text
// is valid, so a container's closing bracket is always found.
func nextStructural(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"', '{', '}', '[', ']':
			return i
		}
	}
	return i
}
