package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refScanStrict reads the strict rules on encoding/json's tokens: an
// independent reading of the same rules, the reference Read's strict
// findings are fuzzed against.
func refScanStrict(body []byte) (*Ambiguity, json.RawMessage) {
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
		i, exact := lookupKey(messageKeys[:], []byte(key))
		if i >= 0 {
			problem := ""
			if !exact {
				problem = "key " + refQuote(key) + " differs from " + refQuote(messageKeys[i]) + " only in case"
			} else if seen[i] {
				problem = "key " + refQuote(key) + " appears twice"
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
		i, exact := lookupKey(paramsKeys[:], []byte(key))
		if i >= 0 {
			if !exact {
				return s.fail(CodeInvalidParams, "params key "+refQuote(key)+" differs from "+refQuote(paramsKeys[i])+" only in case")
			}
			if seen[i] {
				return s.fail(CodeInvalidParams, "params key "+refQuote(key)+" appears twice")
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
		if reason := contextKeySpelling([]byte(key)); reason != "" {
			return s.fail(CodeInvalidParams, "_meta key "+refQuote(key)+" "+reason)
		}
		if isContextKey([]byte(key)) {
			folded := foldKey(key)
			if prev, dup := seen[folded]; dup {
				if prev == key {
					return s.fail(CodeInvalidParams, "_meta key "+refQuote(key)+" appears twice")
				}
				return s.fail(CodeInvalidParams, "_meta keys "+refQuote(prev)+" and "+refQuote(key)+" differ only in case")
			}
			if seen == nil {
				seen = make(map[string]string, 12)
			}
			seen[folded] = key
			if err := s.uniqueKeys(key); err != nil {
				return err
			}
			continue
		}
		if err := s.skipValue(); err != nil {
			return err
		}
	}
	_, err = s.dec.Token()
	return err
}

// uniqueKeys reads a context value; no object in it may hold a key twice.
func (s *strictScan) uniqueKeys(metaKey string) error {
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		for s.dec.More() {
			if err := s.uniqueKeys(metaKey); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		keys := map[string]bool{}
		for s.dec.More() {
			key, err := s.key()
			if err != nil {
				return err
			}
			if keys[key] {
				return s.fail(CodeInvalidParams, "_meta "+refQuote(metaKey)+" holds key "+refQuote(key)+" twice")
			}
			keys[key] = true
			if err := s.uniqueKeys(metaKey); err != nil {
				return err
			}
		}
	default:
		return nil
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
	var skip json.RawMessage
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

// FuzzStrictReading runs Read's strict findings against the reference on
// any body: the same verdict, reason and id. The byte-level findings
// (byte-order mark, invalid UTF-8, lone surrogates) are the reference's
// own too, checked before the walk as Read checks them.
func FuzzStrictReading(f *testing.F) {
	f.Add([]byte(strictCall))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"a\u0041","method":"tools/call","params":{"name":"a","_meta":{"agentarea/x":1,"AGENTAREA/x":2}}}] {}`))
	f.Add([]byte(`{"jsonrpc":"2.0","Id":1,"id":[1],"method":"m","params":{"n\u0061me":"a","name":"b"}}`))
	for _, body := range strictSetBodies() {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := Read(body).Strict
		want := refStrict(body)
		if got != nil && got.RPCCode == CodeParseError {
			return // the reference may find an ambiguity before the syntax error
		}
		if (got == nil) != (want == nil) || got != nil && (got.RPCCode != want.RPCCode || got.Reason != want.Reason || !sameID(got.ID, want.ID)) {
			t.Fatalf("body %q: Read %+v, reference %+v", body, got, want)
		}
	})
}

// refStrict is the whole strict verdict by the reference: the byte checks,
// then the token walk.
func refStrict(body []byte) *Ambiguity {
	bom := bytes.HasPrefix(body, utf8BOM)
	if bom {
		body = body[len(utf8BOM):]
	}
	found, id := refScanStrict(body)
	var first json.RawMessage
	if (found == nil || found.Reason != "the body is empty") && json.NewDecoder(bytes.NewReader(body)).Decode(&first) != nil {
		// Text that is not JSON is judged before any key: no id.
		found, id = &Ambiguity{RPCCode: CodeParseError, Reason: "the body is not valid JSON"}, nil
	}
	switch {
	case bom:
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body starts with a byte-order mark", ID: id}
	case !utf8Valid(body):
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body is not valid UTF-8", ID: id}
	case found == nil && refLoneSurrogate(body):
		return &Ambiguity{RPCCode: CodeInvalidRequest, Reason: "the body escapes a lone UTF-16 surrogate (\\uD800-\\uDFFF unpaired), which parsers decode differently", ID: id}
	}
	return found
}

func sameID(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	dec := func(r json.RawMessage, v *any) error {
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		return d.Decode(v)
	}
	if dec(a, &x) != nil || dec(b, &y) != nil {
		return false
	}
	return x == y
}

// strictSetBodies repeat keys where sets of keys are easy to get wrong: a
// key folding equal to one of another width (the Kelvin sign folds to k),
// many keys.
func strictSetBodies() []string {
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{` + meta + `}}}`
	}
	var many, manyValue strings.Builder
	for i := range 20 {
		fmt.Fprintf(&many, `"agentarea/k%d":1,`, i)
		fmt.Fprintf(&manyValue, `"v%d":1,`, i)
	}
	return []string{
		call(`"agentarea/key":1,"agentarea/Key":2`),
		call("\"agentarea/key\":1,\"agentarea/Key\":2"),
		call("\"agentarea/Key\":1,\"agentarea/KEY\":2"),
		call(many.String() + `"agentarea/k19":2`),
		call(many.String() + `"agentarea/K3":2`),
		call(many.String() + "\"agentarea/K0\":1,\"agentarea/k0x\":1,\"agentarea/K0\":2"),
		call(`"agentarea/metadata":{` + manyValue.String() + `"v19":2}`),
		call(`"agentarea/metadata":{` + manyValue.String() + `"v3":2}`),
		call(`"agentarea/metadata":{` + manyValue.String() + `"v20":2}`),
		call(`"agentarea/metadata":{"a":{"b":1,"b":2}}`),
	}
}

// The reading of keys finds what the reference's maps find.
func TestStrictSets(t *testing.T) {
	for _, body := range strictSetBodies() {
		got, want := Read([]byte(body)).Strict, refStrict([]byte(body))
		if (got == nil) != (want == nil) || got != nil && (got.RPCCode != want.RPCCode || got.Reason != want.Reason || !sameID(got.ID, want.ID)) {
			t.Errorf("body %s: Read %+v, reference %+v", body, got, want)
		}
	}
}

func refQuote(key string) string { return quoteKey([]byte(key)) }

func utf8Valid(b []byte) bool { return utf8.Valid(b) }

// hasLoneSurrogate reports whether a string in body (JSON text) escapes a
// UTF-16 surrogate that is not half of a pair.
func refLoneSurrogate(body []byte) bool {
	for i := bytes.Index(body, []byte(`\u`)); i >= 0; {
		// Count the backslashes before: an even run means an escaped "\\".
		run := 0
		for j := i - 1; j >= 0 && body[j] == '\\'; j-- {
			run++
		}
		next := i + 2
		if run%2 == 0 {
			r, ok := refHex4(body, i+2)
			switch {
			case !ok || r < 0xD800 || r > 0xDFFF:
			case r >= 0xDC00:
				return true // a low half first
			default:
				low, ok := refHex4(body, i+8)
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

// hex4 reads four hex digits at s[i:].
func refHex4(s []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		switch c := s[k]; {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
