package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"toolscope/model"
)

// Body is what one read of a body found: its messages (a batch holds
// several), why it holds none, and why servers could read it otherwise.
// The raw parts of its messages (ids, params, arguments, results) share
// the bytes read: the caller leaves them unchanged while it uses them.
type Body struct {
	Messages []Message
	Batch    bool
	// Err says why the body holds no JSON-RPC message: not JSON, empty,
	// an empty batch.
	Err error
	// Strict is the first reason servers could read the body differently
	// from each other, nil when every server reads it alike. Messages are
	// then what a lenient server runs: the body without a leading
	// byte-order mark, its first JSON value only, invalid UTF-8 and lone
	// surrogates as U+FFFD, a member spelled twice or in another case
	// matched as encoding/json matches struct fields (the last one wins).
	Strict *Ambiguity
}

var (
	errEmptyBody  = errors.New("empty JSON-RPC body")
	errEmptyBatch = errors.New("empty JSON-RPC batch")
	utf8BOM       = []byte{0xEF, 0xBB, 0xBF}
)

// Read reads one body in one pass. A body that is not JSON comes back with
// Err set; a JSON value that is not a valid JSON-RPC message comes back as
// a Message of KindInvalid with Problem set, so one bad element of a batch
// does not hide the others.
func Read(b []byte) Body {
	r := readers.Get().(*reader)
	defer r.release()
	text, bom := b, bytes.HasPrefix(b, utf8BOM)
	if bom {
		text = text[len(utf8BOM):]
	}
	body, rest := r.read(text, false)
	lenient := false
	if r.err != nil {
		// Invalid UTF-8 or a lone surrogate stops a strict read: what a
		// lenient reader makes of the body is what the tap shows.
		strictErr := r.err
		if body, rest = r.read(text, true); r.err != nil {
			return notJSON(text, strictErr, bom)
		}
		lenient = true
	}
	id := r.firstID
	if r.found != nil {
		id = r.found.ID
	}
	trailing := len(bytes.TrimLeft(rest, " \t\r\n")) > 0
	switch {
	case bom:
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body starts with a byte-order mark", ID: id}
	case lenient && !utf8.Valid(text), trailing && !utf8.Valid(rest):
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is not valid UTF-8", ID: id}
	case r.found != nil:
		body.Strict = r.found
	case trailing:
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "data follows the JSON value", ID: r.firstID}
	case lenient:
		// encoding/json reads it as U+FFFD, JavaScript and Python keep it.
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body escapes a lone UTF-16 surrogate (\\uD800-\\uDFFF unpaired), which parsers decode differently", ID: id}
	}
	return body
}

// notJSON is the Body of text that is not JSON (err says where).
func notJSON(text []byte, err error, bom bool) Body {
	if len(bytes.Trim(text, " \t\r\n")) == 0 {
		body := Body{Err: errEmptyBody, Strict: &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is empty"}}
		if bom {
			body.Strict.Reason = "the body starts with a byte-order mark"
		}
		return body
	}
	body := Body{Err: fmt.Errorf("JSON-RPC body is not valid JSON (%d bytes)", len(text)),
		Strict: &Ambiguity{RPCCode: CodeParseError, Reason: "the body is not valid JSON: " + err.Error()}}
	switch {
	case bom:
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body starts with a byte-order mark"}
	case !utf8.Valid(text):
		body.Strict = &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is not valid UTF-8"}
	}
	return body
}

// reader is one read in progress: the tokenizer over the text, the first
// syntax error, and what the strict reading has found so far.
type reader struct {
	dec     jsontext.Decoder
	in      bytes.Buffer
	text    []byte
	lenient bool // invalid UTF-8 is read as U+FFFD
	err     error

	// shared, when set, is text as a string: string values without
	// escapes are its substrings (Object's text is never written again).
	shared string

	found   *Ambiguity      // the first ambiguity
	firstID json.RawMessage // the first message's id, when read without doubt
	id      json.RawMessage // the id of the message being read, so far
	idOK    bool            // no id, or one a server can answer with
}

var readers = sync.Pool{New: func() any { return new(reader) }}

var (
	strictOptions  = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(false)}
	lenientOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	noText         bytes.Buffer
)

// release forgets the text (the pool must not keep it alive).
func (r *reader) release() {
	r.dec.Reset(&noText)
	r.in, r.text, r.shared, r.err = bytes.Buffer{}, nil, "", nil
	r.found, r.firstID, r.id = nil, nil, nil
	readers.Put(r)
}

// read reads text's first JSON value as a body; rest is what follows it.
func (r *reader) read(text []byte, lenient bool) (body Body, rest []byte) {
	r.in = *bytes.NewBuffer(text)
	opts := strictOptions
	if lenient {
		opts = lenientOptions
	}
	r.dec.Reset(&r.in, opts...)
	r.text, r.lenient, r.err, r.found, r.firstID = text, lenient, nil, nil, nil
	switch r.dec.PeekKind() {
	case '{':
		body.Messages = make([]Message, 1)
		r.message(&body.Messages[0])
	case '[':
		body.Batch = true
		r.token()
		for r.more(']') {
			body.Messages = append(body.Messages, Message{})
			m := &body.Messages[len(body.Messages)-1]
			if r.dec.PeekKind() == '{' {
				r.message(m)
			} else {
				r.skip()
				m.invalid("not a JSON object")
			}
		}
		if len(body.Messages) == 0 && r.err == nil {
			body.Err = errEmptyBatch
		}
	case 0:
		r.token() // the error
	default:
		r.skip()
		body.Messages = []Message{{Kind: KindInvalid, Problem: "not a JSON object"}}
	}
	if r.err != nil {
		return Body{}, nil
	}
	return body, text[r.offset():]
}

// The tokenizer's steps; the first error stops the read.

func (r *reader) token() {
	if _, err := r.dec.ReadToken(); err != nil && r.err == nil {
		r.err = err
	}
}

// value reads one value, checked, as written (it shares the text).
func (r *reader) value() json.RawMessage {
	v, err := r.dec.ReadValue()
	if err != nil && r.err == nil {
		r.err = err
	}
	return json.RawMessage(v)
}

func (r *reader) skip() {
	if err := r.dec.SkipValue(); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *reader) offset() int { return int(r.dec.InputOffset()) }

// more says whether the object or array being read has another member;
// false once its closing bracket is read, or after an error.
func (r *reader) more(end jsontext.Kind) bool {
	if r.err != nil {
		return false
	}
	switch r.dec.PeekKind() {
	case end:
		r.token()
		return false
	case 0:
		r.token()
		return false
	}
	return true
}

// name reads a member name, decoded (escapes resolved, invalid UTF-8 as
// U+FFFD); it may share the text.
func (r *reader) name() []byte {
	raw := r.value()
	if len(raw) < 2 {
		return nil
	}
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && (!r.lenient || utf8.Valid(s)) {
		return s
	}
	s, _ := jsontext.AppendUnquote(nil, raw)
	return s
}

// message reads one message object into m.
func (r *reader) message(m *Message) {
	var e envelope
	var p params
	var seen [len(messageKeys)]bool
	r.id, r.idOK = nil, true
	r.token() // {
	for r.more('}') {
		key := r.name()
		i := r.known(key, messageKeys[:], seen[:], CodeInvalidRequest, "key ", keyID)
		switch i {
		case keyJSONRPC:
			e.jsonrpc = r.value()
		case keyID:
			e.id = r.value()
			if r.id, r.idOK = e.id, validID(e.id); !r.idOK {
				r.id = nil
			}
		case keyMethod:
			e.method = r.value()
		case keyParams:
			p = params{}
			e.params = r.params(&p)
		case keyResult:
			m.Summary = nil
			e.result = r.result(m)
		case keyError:
			e.rpcError, e.errObject = r.rpcError()
		default:
			r.skip()
		}
	}
	if r.err != nil {
		return
	}
	m.classify(&e)
	if m.Kind == KindRequest || m.Kind == KindNotification {
		p.interpret(m, e.params)
	}
	if r.found == nil && r.idOK && r.firstID == nil {
		r.firstID = r.id
	}
}

// known finds key among names: spelled exactly, or as encoding/json
// matches a struct field (under Unicode case folding). A key matched other
// than exactly, or twice, is an ambiguity: servers that match exactly read
// another member than those that do not.
// The answer to a problem with names[idAt] (the id) carries no id.
func (r *reader) known(key []byte, names []string, seen []bool, code int, what string, idAt int) int {
	i, exact := lookupKey(names, key)
	if i < 0 {
		return -1
	}
	switch {
	case !exact:
		r.ambiguous(code, what+quoteKey(key)+" differs from "+quoteKey([]byte(names[i]))+" only in case", i == idAt)
	case seen[i]:
		r.ambiguous(code, what+quoteKey(key)+" appears twice", i == idAt)
	}
	seen[i] = true
	return i
}

// ambiguous records the body's first ambiguity; its answer carries the id
// read so far, unless that id is in doubt.
func (r *reader) ambiguous(code int, reason string, idInDoubt bool) {
	if r.found != nil {
		return
	}
	a := &Ambiguity{RPCCode: code, Reason: reason}
	if r.idOK && !idInDoubt {
		a.ID = r.id
	}
	r.found = a
}

// rpcError reads a response's error member: nil for null, the object's
// code, message and data when it is an error object (errObject nil
// otherwise).
func (r *reader) rpcError() (raw json.RawMessage, errObject *RPCError) {
	if r.dec.PeekKind() != '{' {
		if raw = r.value(); isNull(raw) {
			raw = nil
		}
		return raw, nil
	}
	r.token()
	start := r.offset() - 1
	e, ok := &RPCError{}, true
	for r.more('}') {
		switch key := r.name(); {
		case foldsTo(key, "code"):
			v := r.value()
			n, err := strconv.Atoi(string(v))
			ok = ok && (err == nil || isNull(v))
			if err == nil {
				e.Code = n
			}
		case foldsTo(key, "message"):
			v := r.value()
			s, isString := stringValue(v)
			ok = ok && (isString || isNull(v))
			if isString {
				e.Message = s
			}
		case foldsTo(key, "data"):
			e.Data = r.value()
		default:
			r.skip()
		}
	}
	if !ok {
		e = nil
	}
	return r.text[start:r.offset()], e
}

// foldsTo says whether key names the struct field name as encoding/json
// matches it: exactly, or under Unicode simple case folding.
func foldsTo(key []byte, name string) bool {
	return string(key) == name || foldEqual(key, name)
}

// foldEqual is bytes.EqualFold(key, name) for an ASCII name: keys of
// another length can fold equal only through a non-ASCII letter (the
// Kelvin sign is a k).
func foldEqual(key []byte, name string) bool {
	if len(key) != len(name) && model.IsASCII(key) {
		return false
	}
	return bytes.EqualFold(key, []byte(name))
}

// stringValue is the string raw (one JSON value) holds, decoded.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	s, _ := jsontext.AppendUnquote(nil, raw)
	return string(s), true
}

// any reads the value at the decoder as encoding/json decodes it into an
// interface: objects as map[string]any (the last of a repeated key kept),
// arrays as []any, numbers as float64. It also says where the value's
// text is, and records as an ambiguity an object in it holding a key twice
// (parsers keep the first or the last: the token was checked against one).
// ok is false for a number out of float64's range.
func (r *reader) any(metaKey []byte) (v any, raw json.RawMessage, ok bool) {
	switch r.dec.PeekKind() {
	case '{':
		r.token()
		start := r.offset() - 1
		// The members are read first, so that the map is made once, of
		// their number (a token's claims would grow it twice).
		var buf [16]member
		members, ok := buf[:0], true
		for r.more('}') {
			key := r.key()
			v, _, fine := r.any(metaKey)
			members, ok = append(members, member{key, v}), ok && fine
		}
		m := make(map[string]any, len(members))
		for _, mb := range members {
			if _, dup := m[mb.key]; dup && metaKey != nil {
				r.ambiguous(CodeInvalidParams, "_meta "+quoteKey(metaKey)+" holds key "+quoteKey([]byte(mb.key))+" twice", false)
			}
			m[mb.key] = mb.value
		}
		return m, r.text[start:r.offset()], ok
	case '[':
		r.token()
		start := r.offset() - 1
		a, ok := []any{}, true
		for r.more(']') {
			e, _, fine := r.any(metaKey)
			a, ok = append(a, e), ok && fine
		}
		return a, r.text[start:r.offset()], ok
	}
	raw = r.value()
	if r.shared != "" && len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		end := r.offset() - 1
		return r.shared[end-len(raw)+2 : end], raw, true
	}
	v, ok = scalar(raw)
	return v, raw, ok
}

// member is one object member as any reads it.
type member struct {
	key   string
	value any
}

// key reads a member name as a string (a substring of shared when it can).
func (r *reader) key() string {
	if r.shared == "" {
		return string(r.name())
	}
	raw := r.value()
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		end := r.offset()
		return r.shared[end-len(raw)+1 : end-1]
	}
	s, _ := jsontext.AppendUnquote(nil, raw)
	return string(s)
}

// scalar decodes a JSON string, number or literal.
func scalar(raw []byte) (any, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	switch raw[0] {
	case '"':
		s, _ := stringValue(raw)
		return s, true
	case 't':
		return true, true
	case 'f':
		return false, true
	case 'n':
		return nil, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// Object reads text, one JSON object, as encoding/json decodes it into an
// interface (see any): a context token's header and claims.
func Object(text []byte) (map[string]any, error) {
	r := readers.Get().(*reader)
	defer r.release()
	r.in = *bytes.NewBuffer(text)
	r.dec.Reset(&r.in, lenientOptions...)
	r.text, r.lenient, r.shared = text, true, string(text)
	if r.dec.PeekKind() != '{' {
		r.token()
		if r.err == nil {
			r.err = errors.New("not a JSON object")
		}
		return nil, r.err
	}
	v, _, ok := r.any(nil)
	if r.err == nil && len(bytes.Trim(text[r.offset():], " \t\r\n")) > 0 {
		r.err = errors.New("data follows the JSON object")
	}
	if r.err == nil && !ok {
		r.err = errors.New("a number out of range")
	}
	if r.err != nil {
		return nil, r.err
	}
	return v.(map[string]any), nil
}

// Head is what the first bytes of a message too large to read say of it.
type Head struct {
	ID       json.RawMessage // when it comes before the cut
	Method   string
	Response bool // it holds a result or an error
}

// ReadHead reads the members of a JSON-RPC object cut short, up to the cut.
func ReadHead(head []byte) Head {
	var h Head
	r := readers.Get().(*reader)
	defer r.release()
	r.in = *bytes.NewBuffer(head)
	r.dec.Reset(&r.in, lenientOptions...)
	r.text, r.lenient = head, true
	if r.dec.PeekKind() != '{' {
		return h
	}
	r.token()
	for r.more('}') {
		switch key := r.name(); string(key) {
		case "id":
			if v := r.value(); r.err == nil {
				h.ID = v
			}
		case "method":
			h.Method, _ = stringValue(r.value())
		case "result", "error":
			h.Response = true // its value is what was cut
			r.skip()
		default:
			r.skip()
		}
	}
	return h
}
