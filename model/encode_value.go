package model

import (
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// appendFloat writes f as encoding/json writes a float64 (ES6 number
// formatting: 'f' between 1e-6 and 1e21, else 'e' with a short exponent).
// NaN and infinities are its error.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, marshalError(f)
	}
	// A whole number below 2^53 (what JSON decoding makes of an integer:
	// timestamps, counts) has its digits as its shortest form; -0 is "-0".
	if n := int64(f); float64(n) == f && n > -1<<53 && n < 1<<53 && (n != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, n, 10), nil
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// marshalError is the error encoding/json gives for v: the encoder's errors
// stay the ones json.Marshal of the whole event gave.
func marshalError(v any) error {
	_, err := json.Marshal(v)
	return err
}

// maxHandDepth is how deep appendAny nests by hand. What JSON decoding
// yields is shallow; a deeper value fails with errTooDeep and the field
// holding it (meta, context) is encoded by encoding/json instead, whose
// detection of a map or slice that holds itself then gives its error (not
// a crash), counted from the same top as before.
const maxHandDepth = 64

var errTooDeep = errors.New("model: value nested too deep to encode by hand")

// appendMarshalled appends v as encoding/json encodes it, with term as
// TerminalSafeJSON rewrites that.
func appendMarshalled(dst []byte, v any, term bool) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	if dst = append(dst, b...); term {
		dst = makeTerminalSafe(dst, start)
	}
	return dst, nil
}

// appendAny writes what JSON decoding yields by hand, anything else through
// encoding/json; depth counts the maps and slices around v.
func appendAny(dst []byte, v any, depth int, term bool) ([]byte, error) {
	if depth > maxHandDepth {
		return dst, errTooDeep
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, v, term), nil
	case float64:
		return appendFloat(dst, v)
	case bool:
		return strconv.AppendBool(dst, v), nil
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return appendAnyMap(dst, v, depth+1, term)
	case []any:
		return appendAnySlice(dst, v, depth+1, term)
	case json.Number:
		return appendNumber(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case json.RawMessage:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return appendRawJSON(dst, v, term)
	}
	return appendMarshalled(dst, v, term)
}

func appendAnySlice(dst []byte, s []any, depth int, term bool) ([]byte, error) {
	if s == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, v := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendAny(dst, v, depth, term); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendAnyMap writes m with its keys sorted, as encoding/json does.
func appendAnyMap(dst []byte, m map[string]any, depth int, term bool) ([]byte, error) {
	var stack [16]mapEntry[any]
	dst = append(dst, '{')
	for i, kv := range sortedEntries(stack[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, kv.key, term)
		dst = append(dst, ':')
		var err error
		if dst, err = appendAny(dst, kv.value, depth, term); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendStringMap(dst []byte, m map[string]string, term bool) []byte {
	var stack [16]mapEntry[string]
	dst = append(dst, '{')
	for i, kv := range sortedEntries(stack[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, kv.key, term)
		dst = append(dst, ':')
		dst = appendString(dst, kv.value, term)
	}
	return append(dst, '}')
}

// mapEntry is a map's key and value, read once, and the key's first eight
// bytes as a number (big-endian, zero-padded) that orders most pairs of keys
// without comparing the strings.
type mapEntry[V any] struct {
	key    string
	value  V
	prefix uint64
}

func keyPrefix(k string) uint64 {
	if len(k) >= 8 {
		return uint64(k[0])<<56 | uint64(k[1])<<48 | uint64(k[2])<<40 | uint64(k[3])<<32 |
			uint64(k[4])<<24 | uint64(k[5])<<16 | uint64(k[6])<<8 | uint64(k[7])
	}
	var p uint64
	for i := 0; i < len(k); i++ {
		p |= uint64(k[i]) << (56 - 8*i)
	}
	return p
}

// less orders entries as their keys' bytes: keys whose padded prefixes
// differ differ at or before that byte (a shorter key's padding 0 sorts
// before any byte it is compared with, as the shorter string does).
func (a *mapEntry[V]) less(b *mapEntry[V]) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return a.key < b.key
}

// sortedEntries appends m's entries to s sorted by key; a caller's small
// stack array holds them without an allocation.
func sortedEntries[V any](s []mapEntry[V], m map[string]V) []mapEntry[V] {
	for k, v := range m {
		s = append(s, mapEntry[V]{k, v, keyPrefix(k)})
	}
	if len(s) > 12 {
		slices.SortFunc(s, func(a, b mapEntry[V]) int {
			if a.prefix != b.prefix {
				return cmp.Compare(a.prefix, b.prefix)
			}
			return strings.Compare(a.key, b.key)
		})
		return s
	}
	for i := 1; i < len(s); i++ { // insertion sort: the greater entries move up one
		e := s[i]
		j := i
		for ; j > 0 && e.less(&s[j-1]); j-- {
			s[j] = s[j-1]
		}
		s[j] = e
	}
	return s
}

// appendNumber writes a json.Number as encoding/json does: "" is 0, an
// invalid literal is its error.
func appendNumber(dst []byte, n json.Number) ([]byte, error) {
	if n == "" {
		return append(dst, '0'), nil
	}
	if !validNumber(string(n)) {
		return dst, marshalError(n)
	}
	return append(dst, n...), nil
}

// validNumber is encoding/json's isValidNumber: a JSON number literal.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		if s = s[1:]; s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = skipDigits(s[1:])
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = skipDigits(s[2:])
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			if s = s[1:]; s == "" {
				return false
			}
		}
		s = skipDigits(s)
	}
	return s == ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(s string) string {
	for len(s) > 0 && isDigit(s[0]) {
		s = s[1:]
	}
	return s
}
