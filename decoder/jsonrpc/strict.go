package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"toolscope/model"
)

// Ambiguity is why servers could read a request body differently from
// toolscope (and from each other): a parse differential, which --enforce
// must refuse rather than forward. RPCCode is the JSON-RPC error a strict
// reader answers: CodeParseError for text that is not JSON,
// CodeInvalidParams for a problem in params or _meta, CodeInvalidRequest
// otherwise. ID is the request id, when one could be read without doubt.
//
// What Read calls ambiguous: a byte-order mark, invalid UTF-8, anything
// after the JSON value, a lone UTF-16 surrogate escape (encoding/json
// reads U+FFFD, JavaScript and Python keep it); in each message, a key of
// the envelope, of params (name, _meta, arguments) or of _meta's context
// (progressToken and the agentarea/* keys) spelled twice or in another
// case, compared under Unicode simple case folding as encoding/json
// matches struct fields (so "ſ" is an "s"; the go-sdk and JavaScript match
// exactly); and a key twice in an object inside a context value.
type Ambiguity struct {
	RPCCode int
	Reason  string
	ID      json.RawMessage
}

// The keys whose spelling decides what a request is.
var (
	messageKeys = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsKeys  = [...]string{"name", "_meta", "arguments"}
)

// The indexes of messageKeys and paramsKeys.
const (
	keyJSONRPC = iota
	keyID
	keyMethod
	keyParams
	keyResult
	keyError
)

const (
	keyName = iota
	keyMeta
	keyArguments
)

// lookupKey finds key among known: its index and whether it is spelled
// exactly (-1 when it is none of them, in any case).
func lookupKey(known []string, key []byte) (int, bool) {
	for i, k := range known {
		if string(key) == k {
			return i, true
		}
	}
	for i, k := range known {
		if foldEqual(key, k) {
			return i, false
		}
	}
	return -1, false
}

// isContextKey: progressToken or an agentarea/* key, spelled exactly.
func isContextKey(key []byte) bool {
	return string(key) == MetaProgressToken || bytes.HasPrefix(key, []byte(AgentAreaPrefix))
}

// contextKeySpelling says what is wrong with a _meta key that is a context
// key in another case ("" when nothing is).
func contextKeySpelling(key []byte) string {
	if string(key) != MetaProgressToken && bytes.EqualFold(key, []byte(MetaProgressToken)) {
		return "differs from \"progressToken\" only in case"
	}
	if !bytes.HasPrefix(key, []byte(AgentAreaPrefix)) && hasFoldPrefix(key, AgentAreaPrefix) {
		return "spells the \"agentarea/\" prefix in another case"
	}
	return ""
}

// hasFoldPrefix reports whether s starts, under Unicode simple case
// folding, with the ASCII prefix p (a non-ASCII letter such as the Kelvin
// sign folds to an ASCII one, and may be wider in bytes).
func hasFoldPrefix(s []byte, p string) bool {
	for _, pr := range p {
		r, size := utf8.DecodeRune(s)
		if size == 0 || !strings.EqualFold(string(r), string(pr)) {
			return false
		}
		s = s[size:]
	}
	return true
}

// contextKeys remembers a _meta object's context keys, to find one given
// twice or in two cases.
type contextKeys struct {
	few  [12][]byte
	keys [][]byte
}

// check records key (a context key) and says what is wrong with it.
func (c *contextKeys) check(key []byte) string {
	for _, k := range c.keys {
		if bytes.Equal(k, key) {
			return "_meta key " + quoteKey(key) + " appears twice"
		}
		if bytes.EqualFold(k, key) {
			return "_meta keys " + quoteKey(k) + " and " + quoteKey(key) + " differ only in case"
		}
	}
	if c.keys == nil {
		c.keys = c.few[:0]
	}
	c.keys = append(c.keys, key)
	return ""
}

// quoteKey quotes a key for a message, shortened.
func quoteKey(key []byte) string { return strconv.Quote(model.Truncate(string(key), 80)) }
