package model

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Writing JSON values by appending to a buffer: the JSON lines (output)
// and the text a stored call keeps its maps in (call_compact.go).

// AppendJSONString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

// AppendJSONNumber writes a number as JSON writes it; a value JSON has no
// number for (NaN, infinities) is null.
func AppendJSONNumber(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	// A whole number below 2^53 (timestamps, counts: most numbers of an
	// event) is its digits, written without the float formatting.
	if n := int64(v); float64(n) == v && n > -1<<53 && n < 1<<53 && (n != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(b, n, 10)
	}
	return jsontext.AppendFloat(b, v, 64)
}

// AppendJSONRaw writes a raw JSON value compacted; a value that is not
// JSON is written as a string of its text.
func AppendJSONRaw(b, v []byte) []byte {
	start := len(b)
	b, err := jsontext.AppendFormat(b, v)
	if err != nil {
		b = AppendJSONString(b[:start], string(v))
	}
	return b
}

// AppendJSONMap writes a map as an object, its keys sorted as
// encoding/json does, each value by appendValue.
func AppendJSONMap[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	var stack [16]string // the small maps of every event sort here
	keys := slices.AppendSeq(stack[:0], maps.Keys(m))
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendValue(append(AppendJSONString(b, k), ':'), m[k])
	}
	return append(b, '}')
}

// AppendJSONValue writes what JSON decoding makes (and numbers of any Go
// type); other values go through encoding/json, and one it cannot write
// is null.
func AppendJSONValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return AppendJSONString(b, t)
	case bool:
		return strconv.AppendBool(b, t)
	case float64:
		return AppendJSONNumber(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case int64:
		return strconv.AppendInt(b, t, 10)
	case map[string]any:
		return AppendJSONMap(b, t, AppendJSONValue)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONValue(b, e)
		}
		return append(b, ']')
	case json.Number:
		return AppendJSONRaw(b, []byte(t))
	case json.RawMessage:
		if len(t) == 0 {
			return append(b, "null"...)
		}
		return AppendJSONRaw(b, t)
	}
	raw, err := json.Marshal(v)
	if err != nil || len(raw) == 0 {
		return append(b, "null"...)
	}
	return AppendJSONRaw(b, raw)
}
