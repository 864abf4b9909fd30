package decoder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ambiguity is why servers could read a request body differently from
// toolscope (and from each other). RPCCode is the JSON-RPC error a strict
// reader answers: CodeParseError for text that is not JSON,
// CodeInvalidParams for a tools/call params or _meta problem,
// CodeInvalidRequest otherwise. ID is the request id, when one could be read
// without doubt.
type Ambiguity struct {
	RPCCode int
	Reason  string
	ID      json.RawMessage
}

// The keys whose spelling decides what a request is. encoding/json matches
// struct fields case-insensitively (the last match wins) while the go-sdk
// and JavaScript match exactly, so a second or differently-cased copy of
// one of these makes the body mean two things.
var (
	messageKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsKeys  = []string{"name", "_meta", "arguments"}
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// CheckStrict reads a request body as any JSON-RPC server would have to
// read it to agree with every other: one JSON value in valid UTF-8, no
// byte-order mark, nothing after it, and, in each message, its params and
// their _meta, every key that matters spelled exactly once and exactly. It
// returns nil for such a body, or the first ambiguity. It does not judge
// whether the messages are valid JSON-RPC (ParseMessages does).
func CheckStrict(body []byte) *Ambiguity { return checkStrict(body, false) }

// CheckStrictRead is CheckStrict for a body ParseMessages read without an
// error: that read already checked the syntax as json.Valid does, so the
// walk starts at once rather than checking the text a second time.
func CheckStrictRead(body []byte) *Ambiguity {
	return checkStrict(body, jsonSpaceEdges(body))
}

// jsonSpaceEdges says whether what ParseMessages trims off body (Unicode
// spaces) is JSON whitespace only: then the whole body is valid JSON when
// what it read is.
func jsonSpaceEdges(body []byte) bool {
	t := bytes.Trim(body, " \t\r\n")
	return len(t) > 0 && len(bytes.TrimSpace(t)) == len(t)
}

// checkStrict is CheckStrict; valid says the body is known to be valid JSON.
func checkStrict(body []byte, valid bool) *Ambiguity {
	bom := bytes.HasPrefix(body, utf8BOM)
	if bom {
		body, valid = body[len(utf8BOM):], false
	}
	found, id := scanStrict(body, valid)
	// A BOM or invalid UTF-8 comes first; the id is read past them.
	switch {
	case bom:
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body starts with a byte-order mark", ID: id}
	case !utf8.Valid(body):
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is not valid UTF-8", ID: id}
	case found == nil && hasLoneSurrogate(body):
		// encoding/json reads it as U+FFFD, JavaScript and Python keep it.
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body escapes a lone UTF-16 surrogate (\\uD800-\\uDFFF unpaired), which parsers decode differently", ID: id}
	}
	return found
}

// scanStrict is CheckStrict past the byte checks; id is the first
// message's id when it could be read without doubt. encoding/json checks
// the syntax (json.Valid, or a Decoder for a body with more after its first
// value); the walk over the text it passed finds the keys.
func scanStrict(body []byte, valid bool) (*Ambiguity, json.RawMessage) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is empty"}, nil
	}
	value, trailing := body, false
	if !valid && !validJSON(body) {
		dec := json.NewDecoder(bytes.NewReader(body))
		var skip skippedValue
		if err := dec.Decode(&skip); err != nil {
			return &Ambiguity{RPCCode: CodeParseError, Reason: "the body is not valid JSON: " + err.Error()}, nil
		}
		value, trailing = body[:dec.InputOffset()], true
	}
	w := &walker{b: value}
	if a := w.top(); a != nil {
		return a, a.ID
	}
	if trailing {
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "data follows the JSON value", ID: w.id}, w.id
	}
	return nil, w.id
}

// validJSON is json.Valid(body): the envelope reader's pass, which checks
// the text as encoding/json's scanner does, answers the common case;
// anything it does not accept (deep nesting, an error) is encoding/json's
// to judge.
func validJSON(body []byte) bool {
	r := envelopeReader{s: body}
	r.space()
	if r.skipValue(0) && r.end() {
		return true
	}
	return json.Valid(body)
}

// hasLoneSurrogate reports whether a string in body (JSON text) escapes a
// UTF-16 surrogate that is not half of a pair.
func hasLoneSurrogate(body []byte) bool {
	for i := bytes.Index(body, []byte(`\u`)); i >= 0; {
		// Count the backslashes before: an even run means an escaped "\\".
		run := 0
		for j := i - 1; j >= 0 && body[j] == '\\'; j-- {
			run++
		}
		next := i + 2
		if run%2 == 0 {
			r, ok := hex4(body, i+2)
			switch {
			case !ok || r < 0xD800 || r > 0xDFFF:
			case r >= 0xDC00:
				return true // a low half first
			default:
				low, ok := hex4(body, i+8)
				if !ok || !bytes.HasPrefix(body[i+6:], []byte(`\u`)) || low < 0xDC00 || low > 0xDFFF {
					return true
				}
				next = i + 12
			}
		}
		k := bytes.Index(body[next:], []byte(`\u`))
		if k < 0 {
			return false
		}
		i = next + k
	}
	return false
}

// LenientBody is the request a lenient server reads when ParseMessages
// cannot read body: without a leading byte-order mark (JavaScript servers
// drop it) and only its first JSON value (the go-sdk ignores what follows).
// It is nil when neither applies.
func LenientBody(body []byte) []byte {
	lenient := bytes.TrimPrefix(body, utf8BOM)
	dec := json.NewDecoder(bytes.NewReader(lenient))
	var skip skippedValue
	if dec.Decode(&skip) == nil {
		lenient = lenient[:dec.InputOffset()]
	}
	if len(lenient) == len(body) {
		return nil
	}
	return lenient
}

// skippedValue is a value decoded into nothing: encoding/json checks it
// and hands it over without copying or building anything.
type skippedValue struct{}

func (*skippedValue) UnmarshalJSON([]byte) error { return nil }

// lookupKey finds key among known: its index and whether it is spelled
// exactly (-1 when it is none of them, in any case).
func lookupKey(known []string, key []byte) (int, bool) {
	for i, k := range known {
		if string(key) == k {
			return i, true
		}
	}
	for i, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return i, false
		}
	}
	return -1, false
}

// isContextKey: progressToken or an agentarea/* key, spelled exactly.
func isContextKey(key string) bool {
	return key == MetaProgressToken || strings.HasPrefix(key, AgentAreaPrefix)
}

// contextKeySpelling says what is wrong with a key that is a context key in
// another case ("" when nothing is).
func contextKeySpelling(key string) string {
	if key != MetaProgressToken && strings.EqualFold(key, MetaProgressToken) {
		return "differs from \"progressToken\" only in case"
	}
	if !strings.HasPrefix(key, AgentAreaPrefix) && hasFoldPrefix(key, AgentAreaPrefix) {
		return "spells the \"agentarea/\" prefix in another case"
	}
	return ""
}

// hasFoldPrefix reports whether s starts, under Unicode simple case
// folding, with the ASCII prefix p (a non-ASCII letter such as the Kelvin
// sign folds to an ASCII one, and may be wider in bytes).
func hasFoldPrefix(s, p string) bool {
	for _, pr := range p {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !strings.EqualFold(string(r), string(pr)) {
			return false
		}
		s = s[size:]
	}
	return true
}

// foldKey is key under Unicode simple case folding (as strings.EqualFold
// and encoding/json compare): equal for two keys exactly when they fold equal.
func foldKey(key string) string {
	return strings.Map(foldRune, key)
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	// The smallest rune of r's folding orbit stands for all of them; for
	// an orbit holding an ASCII letter, use its lower case like above.
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	if 'A' <= min && min <= 'Z' {
		return min + 'a' - 'A'
	}
	return min
}

// quoteKey quotes a key for a message, shortened.
func quoteKey(key string) string {
	return fmt.Sprintf("%q", clip(key))
}
