package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// redaction is one pass of the policy over one event (or one text): the
// names it judges by and the secret values it replaces.
type redaction struct {
	names *nameMatcher
	known []string
}

// pass starts a pass; headers, when given, are the event's: the
// credentials in them are remembered first, so the same values are
// redacted in the rest of the event and in later ones.
func (r *Redactor) pass(headers map[string]string) redaction {
	x := redaction{names: r.matcher()}
	var mem *secretMemory
	if r != nil {
		mem = r.secrets
	}
	var seen []string
	for k, v := range headers {
		if strings.EqualFold(k, ContextHeader) || !x.names.isCredential(k) {
			continue
		}
		whole, cred := credentialParts(v)
		for _, p := range [2]string{whole, cred} {
			if mem != nil {
				mem.learn(p)
			} else if len(p) >= minSecretLen && p != Redacted {
				seen = append(seen, p)
			}
		}
	}
	x.known = mem.list()
	if len(seen) > 0 { // no memory: this event's own credentials only
		x.known = slices.Concat(seen, x.known)
		slices.SortFunc(x.known, func(a, b string) int { return len(b) - len(a) })
	}
	return x
}

func (x redaction) text(s string) string {
	if s == "" {
		return s
	}
	if t := strings.TrimSpace(s); len(t) > 1 && (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		if red, changed := x.json([]byte(s)); changed { // a JSON document as text (a result's preview)
			return string(red)
		}
	}
	return redactText(s, x.known, x.names)
}

func (x redaction) header(name, value string) string {
	switch {
	case strings.EqualFold(name, ContextHeader):
		return RedactToken(value)
	case x.names.isCredential(name):
		return credentialValue(value)
	}
	return x.text(value)
}

// keyedText is a value under a name that is not a header's (the SOAT
// context's keys): a credential's redacted, any other as text.
func (x redaction) keyedText(k, v string) string {
	if x.names.isCredential(k) {
		return credentialValue(v)
	}
	return x.text(v)
}

// stringMap redacts a map of names to strings (headers as header does,
// the SOAT context as keyedText does); the original is returned when
// nothing changed.
func (x redaction) stringMap(m map[string]string, headers bool) map[string]string {
	var out map[string]string
	for k, v := range m {
		var red string
		if headers {
			red = x.header(k, v)
		} else {
			red = x.keyedText(k, v)
		}
		if red != v {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = red
		}
	}
	if out == nil {
		return m
	}
	return out
}

// keyed is the value under a key: a credential's redacted, the context
// token's signature dropped, anything else walked.
func (x redaction) keyed(k string, v any) (any, bool) {
	if s, ok := v.(string); ok && strings.EqualFold(k, ContextHeader) {
		if red := RedactToken(s); red != s {
			return red, true
		}
		return v, false
	}
	if x.names.isCredential(k) {
		return redactedAny(v)
	}
	return x.value(v)
}

// redactedAny is a credential's value as shown: booleans, null and an
// empty string stay (they hide nothing), anything else is Redacted.
func redactedAny(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return v, false
	case string:
		if red := credentialValue(t); red != t {
			return red, true
		}
		return v, false
	}
	return Redacted, true
}

// value walks what JSON decoding makes (maps, slices, strings, numbers),
// copying only what changes.
func (x redaction) value(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		if red := x.text(t); red != t {
			return red, true
		}
		return v, false // not boxed again
	case map[string]any:
		return x.anyMap(t)
	case []any:
		var out []any
		for i, e := range t {
			if red, changed := x.value(e); changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = red
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case json.RawMessage:
		red, changed := x.json(t)
		return json.RawMessage(red), changed
	}
	return v, false
}

// anyMap is value for a map: the original when nothing changed.
func (x redaction) anyMap(m map[string]any) (map[string]any, bool) {
	var out map[string]any
	for k, v := range m {
		if red, changed := x.keyed(k, v); changed {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = red
		}
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// jsonWalkers are reused: every argument list and result passes.
var jsonWalkers = sync.Pool{New: func() any {
	w := &jsonWalk{}
	w.dec = jsontext.NewDecoder(&w.in, jsonOptions...)
	w.enc = jsontext.NewEncoder(&w.out, jsonOptions...)
	return w
}}

// jsonOptions read and write JSON as it came: duplicate names and invalid
// UTF-8 are kept (a recording shows what was sent, a judgment elsewhere
// says what is wrong with it).
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

type jsonWalk struct {
	x       redaction
	in      bytes.Reader
	out     bytes.Buffer
	dec     *jsontext.Decoder
	enc     *jsontext.Encoder
	write   bool // write the document; else only look for a change
	changed bool
}

// json redacts a JSON document: the values of credential keys at any
// depth, and what text redacts in every string. The document is returned
// as it was unless something was redacted; text that is not JSON is
// redacted as text. Most documents hold nothing to redact: a look at their
// bytes (mayHold) says so without reading them as JSON, and a first
// reading that finds nothing writes nothing.
func (x redaction) json(raw []byte) ([]byte, bool) {
	if len(raw) == 0 || !x.mayHold(raw) {
		return raw, false
	}
	w := jsonWalkers.Get().(*jsonWalk)
	defer func() {
		if w.out.Cap() <= 1<<20 {
			w.x = redaction{}
			jsonWalkers.Put(w)
		}
	}()
	w.x = x
	changed, err := w.walk(raw, false)
	if err == nil && changed {
		_, err = w.walk(raw, true)
	}
	if err != nil {
		if red := x.text(string(raw)); red != string(raw) {
			return []byte(red), true
		}
		return raw, false
	}
	if !changed {
		return raw, false
	}
	return bytes.Clone(bytes.TrimSuffix(w.out.Bytes(), []byte("\n"))), true
}

// walk reads raw once: with write, it writes the redacted document to
// w.out; without, it only says whether anything would change.
func (w *jsonWalk) walk(raw []byte, write bool) (changed bool, err error) {
	w.changed, w.write = false, write
	w.in.Reset(raw)
	w.dec.Reset(&w.in, jsonOptions...)
	if write {
		w.out.Reset()
		w.enc.Reset(&w.out, jsonOptions...)
	}
	if err := w.value(false); err != nil && err != errFound {
		return false, err
	}
	if !write && w.changed {
		return true, nil // found: the rest need not be read now
	}
	if _, err := w.dec.ReadToken(); err == nil { // nothing may follow the document
		return false, errTrailingData
	} else if !errors.Is(err, io.EOF) {
		return false, err
	}
	return w.changed, nil
}

// errFound stops a walk that only looks, at the first change.
var errFound = errors.New("found")

// credentialFragments are what any name CredentialNames matches holds
// (lower case): a document without one of them, nor what text looks for,
// has nothing to redact.
var credentialFragments = [][]byte{[]byte("auth"), []byte("token"), []byte("jwt"), []byte("secret"), []byte("pass"),
	[]byte("pwd"), []byte("credential"), []byte("cookie"), []byte("sig"), []byte("bearer"), []byte("key")}

// mayHold says whether raw may hold something to redact: a credential
// name, a known secret, a JWT, a URL, or an escape that could spell one.
func (x redaction) mayHold(raw []byte) bool {
	if len(x.names.extra) > 0 || bytes.Contains(raw, []byte("eyJ")) || bytes.Contains(raw, []byte("://")) ||
		bytes.Contains(raw, []byte(`\u`)) || bytes.Contains(raw, []byte("\u212a")) || bytes.Contains(raw, []byte("\u0130")) {
		return true
	}
	for _, v := range x.known {
		if bytes.Contains(raw, []byte(v)) {
			return true
		}
	}
	buf := lowerBuffers.Get().(*[]byte)
	lower := appendLower((*buf)[:0], raw)
	if cap(lower) <= 1<<20 {
		*buf = lower
		defer lowerBuffers.Put(buf)
	}
	for _, f := range credentialFragments {
		if bytes.Contains(lower, f) {
			return true
		}
	}
	return false
}

var lowerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendLower appends raw with ASCII letters lowered (the two other
// letters that lower to ASCII ones, the Kelvin sign and the dotted I, are
// looked for on their own).
func appendLower(dst, raw []byte) []byte {
	for _, c := range raw {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

var errTrailingData = errors.New("data after the JSON document")
