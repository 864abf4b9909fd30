package jsonrpc

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// IDKey is the identity of a JSON-RPC id or a progress token given as raw
// JSON, for matching a server's echo to the request: the same value written
// in another JSON form ("\u00e9" for "é", "\/" for "/", "<" for "\u003c",
// 1e3 for 1000, every digit of an integer past 2^53) has the same key, and
// a string never shares one with a number ("1" is not 1). "" means none
// (absent or null). Keys are for comparing, not for showing.
func IDKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		if s, ok := stringValue(raw); ok && raw[len(raw)-1] == '"' {
			return "s" + s // escapes decoded, invalid UTF-8 as U+FFFD
		}
	case c == '-' || c >= '0' && c <= '9':
		if n, ok := exactNumber(raw); ok {
			return "n" + n
		}
	}
	// Not a valid id: compare the text itself.
	return "j" + string(raw)
}

// exactNumber is a JSON number's value as an exact fraction, never through
// float64: 1000, 1e3 and 10.0E2 are all "1000", 0.5 and 5e-1 "1/2". ok is
// false for text that is not a JSON number, or too long (over 400 bytes,
// or an exponent past ±400) to be worth the arithmetic: such an id is then
// matched by its text.
func exactNumber(raw []byte) (string, bool) {
	if d := bytes.TrimPrefix(raw, []byte("-")); len(d) > 0 && d[0] != '0' && len(d) < 400 &&
		len(bytes.TrimLeft(d, "0123456789")) == 0 {
		return string(raw), true // an integer is written as its fraction is
	}
	if len(raw) > 400 || !jsontext.Value(raw).IsValid() {
		return "", false
	}
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		if e, err := strconv.Atoi(string(raw[i+1:])); err != nil || e > 400 || e < -400 {
			return "", false
		}
	}
	var r big.Rat
	if _, ok := r.SetString(string(raw)); !ok {
		return "", false
	}
	return r.RatString(), true
}
