package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
func CheckStrict(body []byte) *Ambiguity {
	bom := bytes.HasPrefix(body, utf8BOM)
	if bom {
		body = body[len(utf8BOM):]
	}
	found, id := scanStrict(body)
	// A BOM or invalid UTF-8 comes first; the id is read past them.
	switch {
	case bom:
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body starts with a byte-order mark", ID: id}
	case !utf8.Valid(body):
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is not valid UTF-8", ID: id}
	}
	return found
}

// scanStrict is CheckStrict past the byte checks; id is the first
// message's id when it could be read without doubt.
func scanStrict(body []byte) (*Ambiguity, json.RawMessage) {
	s := &strictScan{dec: json.NewDecoder(bytes.NewReader(body))}
	s.dec.UseNumber()
	tok, err := s.dec.Token()
	if err == io.EOF {
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is empty"}, nil
	}
	if err == nil {
		switch tok {
		case json.Delim('{'):
			err = s.message()
		case json.Delim('['):
			err = s.batch()
		}
	}
	if err != nil {
		a := s.ambiguity(err)
		return a, a.ID
	}
	if rest := body[s.dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "data follows the JSON value", ID: s.id}, s.id
	}
	return nil, s.id
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

// strictScan walks one body with a token decoder.
type strictScan struct {
	dec   *json.Decoder
	id    json.RawMessage // the first message's id, when read without doubt
	found *Ambiguity      // the ambiguity that stopped the walk
}

// errAmbiguous stops the walk once found is set.
var errAmbiguous = errors.New("ambiguous")

func (s *strictScan) ambiguity(err error) *Ambiguity {
	if s.found != nil {
		if s.found.ID == nil {
			s.found.ID = s.id
		}
		return s.found
	}
	return &Ambiguity{RPCCode: CodeParseError, Reason: "the body is not valid JSON: " + err.Error()}
}

func (s *strictScan) fail(code int, reason string) error {
	s.found = &Ambiguity{RPCCode: code, Reason: reason}
	return errAmbiguous
}

func (s *strictScan) batch() error {
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim('{') {
			err = s.message()
		} else {
			err = s.skipRest(tok)
		}
		if err != nil {
			return err
		}
	}
	_, err := s.dec.Token() // ']'
	return err
}

// message reads one message object after its '{'.
func (s *strictScan) message() error {
	var seen [6]bool
	var id json.RawMessage
	idOK := true
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		i, exact := lookupKey(messageKeys, key)
		if i >= 0 {
			problem := ""
			if !exact {
				problem = "key " + quoteKey(key) + " differs from " + quoteKey(messageKeys[i]) + " only in case"
			} else if seen[i] {
				problem = "key " + quoteKey(key) + " appears twice"
			}
			if problem != "" {
				err := s.fail(CodeInvalidRequest, problem)
				if i != 1 && idOK { // a doubtful id is answered as null
					s.found.ID = id
				}
				return err
			}
			seen[i] = true
		}
		switch {
		case i == 1: // id
			id, idOK, err = s.idValue()
		case i == 3: // params
			err = s.params()
		default:
			err = s.skipValue()
		}
		if err != nil {
			if s.found != nil && s.found.ID == nil && idOK {
				s.found.ID = id
			}
			return err
		}
	}
	if idOK && s.id == nil {
		s.id = id
	}
	_, err := s.dec.Token() // '}'
	return err
}

// params reads a message's params value; an object's name, _meta and
// arguments must each be spelled once, exactly.
func (s *strictScan) params() error {
	tok, err := s.dec.Token()
	if err != nil || tok != json.Delim('{') {
		if err == nil {
			err = s.skipRest(tok)
		}
		return err
	}
	var seen [3]bool
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		i, exact := lookupKey(paramsKeys, key)
		if i >= 0 {
			if !exact {
				return s.fail(CodeInvalidParams, "params key "+quoteKey(key)+" differs from "+quoteKey(paramsKeys[i])+" only in case")
			}
			if seen[i] {
				return s.fail(CodeInvalidParams, "params key "+quoteKey(key)+" appears twice")
			}
			seen[i] = true
		}
		if i == 1 {
			err = s.meta()
		} else {
			err = s.skipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err = s.dec.Token()
	return err
}

// meta reads a _meta value: its context keys (progressToken and the
// agentarea/* keys) must each be spelled once, exactly.
func (s *strictScan) meta() error {
	tok, err := s.dec.Token()
	if err != nil || tok != json.Delim('{') {
		if err == nil {
			err = s.skipRest(tok)
		}
		return err
	}
	var seen map[string]string // folded key => as spelled
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		if reason := contextKeySpelling(key); reason != "" {
			return s.fail(CodeInvalidParams, "_meta key "+quoteKey(key)+" "+reason)
		}
		if isContextKey(key) {
			folded := foldKey(key)
			if prev, dup := seen[folded]; dup {
				if prev == key {
					return s.fail(CodeInvalidParams, "_meta key "+quoteKey(key)+" appears twice")
				}
				return s.fail(CodeInvalidParams, "_meta keys "+quoteKey(prev)+" and "+quoteKey(key)+" differ only in case")
			}
			if seen == nil {
				seen = make(map[string]string, 12)
			}
			seen[folded] = key
		}
		if err := s.skipValue(); err != nil {
			return err
		}
	}
	_, err = s.dec.Token()
	return err
}

// key reads an object key (the decoder has already checked it is one).
func (s *strictScan) key() (string, error) {
	tok, err := s.dec.Token()
	if err != nil {
		return "", err
	}
	k, _ := tok.(string)
	return k, nil
}

// idValue reads an id value; ok is false when it is no valid id.
func (s *strictScan) idValue() (json.RawMessage, bool, error) {
	tok, err := s.dec.Token()
	if err != nil {
		return nil, false, err
	}
	switch v := tok.(type) {
	case string:
		b, _ := json.Marshal(v)
		return b, true, nil
	case json.Number:
		return json.RawMessage(v), true, nil
	case nil:
		return json.RawMessage("null"), true, nil
	}
	return nil, false, s.skipRest(tok)
}

// skipValue consumes the next value whole, without building it.
func (s *strictScan) skipValue() error {
	var skip skippedValue
	return s.dec.Decode(&skip)
}

// skipRest consumes the rest of a value whose first token was tok.
func (s *strictScan) skipRest(tok json.Token) error {
	depth := 0
	for {
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = s.dec.Token(); err != nil {
			return err
		}
	}
}

// skippedValue is a value decoded into nothing: encoding/json checks it
// and hands it over without copying or building anything.
type skippedValue struct{}

func (*skippedValue) UnmarshalJSON([]byte) error { return nil }

// lookupKey finds key among known: its index and whether it is spelled
// exactly (-1 when it is none of them, in any case).
func lookupKey(known []string, key string) (int, bool) {
	for i, k := range known {
		if key == k {
			return i, true
		}
	}
	for i, k := range known {
		if strings.EqualFold(key, k) {
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
