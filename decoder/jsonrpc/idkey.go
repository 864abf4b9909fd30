package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
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
		var buf [64]byte
		if key, ok := appendCanonicalNumber(append(buf[:0], 'n'), string(raw)); ok {
			return string(key)
		}
	}
	// Not a valid id: compare the text itself.
	return "j" + string(raw)
}

// appendCanonicalNumber writes a JSON number exactly, in one form per
// value: "0", or an optional "-", the significant digits without leading
// or trailing zeros, then "e" and the exponent (so 1000, 1e3 and 10.0E2
// are all "1e3"). It never goes through float64. ok is false for text that
// is not a JSON number, or whose exponent is too large to matter.
func appendCanonicalNumber(dst []byte, s string) ([]byte, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[intStart:i]
	if len(intDigits) == 0 || len(intDigits) > 1 && intDigits[0] == '0' {
		return dst, false
	}
	var fracDigits string
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return dst, false
		}
		fracDigits = s[start:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		start := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		digits := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == digits || i-digits > 15 {
			return dst, false
		}
		exp, _ = strconv.ParseInt(s[start:i], 10, 64)
	}
	if i != len(s) {
		return dst, false
	}
	// The value is 0.<intDigits><fracDigits> * 10^(exp+len(intDigits)):
	// trim zeros on both ends of the digits, then place the point after the
	// first significant digit.
	exp += int64(len(intDigits))
	lead := countLeadingZeros(intDigits)
	if lead == len(intDigits) {
		lead += countLeadingZeros(fracDigits)
	}
	all := len(intDigits) + len(fracDigits)
	if lead == all {
		return append(dst, '0'), true // -0 and 0.000e5 are 0
	}
	// The significant digits: from lead to the last non-zero one.
	last := all
	for last > lead && digitAt(intDigits, fracDigits, last-1) == '0' {
		last--
	}
	exp -= int64(lead) + 1
	if neg {
		dst = append(dst, '-')
	}
	for k := lead; k < last; k++ {
		dst = append(dst, digitAt(intDigits, fracDigits, k))
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, exp, 10), true
}

func countLeadingZeros(s string) int {
	n := 0
	for n < len(s) && s[n] == '0' {
		n++
	}
	return n
}

// digitAt is the k-th digit of a followed by b.
func digitAt(a, b string, k int) byte {
	if k < len(a) {
		return a[k]
	}
	return b[k-len(a)]
}
