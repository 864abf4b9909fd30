package token

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"toolscope/model"
)

// jsonEqual compares two decoded JSON values (nil, bool, float64, string,
// []any, map[string]any) as JSON: objects regardless of key order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			if yv, present := y[k]; !present || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case nil, bool, float64, string:
		return a == b
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// describe renders a claim or _meta value for a reason string, clipped so a
// hostile value cannot flood a line.
func describe(v any) string {
	if v == nil {
		return "(absent)"
	}
	if s, ok := v.(string); ok {
		return strconv.Quote(model.Truncate(s, 80))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	return model.Truncate(string(b), 80)
}

// HumanDuration renders a duration the way toolscope speaks of token ages:
// "12 s", "4 m 48 s", "2 h 5 m", "3 d 4 h". Negative durations are rendered
// by their magnitude.
func HumanDuration(d time.Duration) string {
	var buf [24]byte
	return string(appendHumanDuration(buf[:0], d))
}

// appendHumanDuration appends HumanDuration(d) to b.
func appendHumanDuration(b []byte, d time.Duration) []byte {
	if d < 0 {
		d = -d
	}
	s := int64(d.Round(time.Second) / time.Second)
	var big, small int64
	var bigUnit, smallUnit string
	switch {
	case s < 60:
		return append(strconv.AppendInt(b, s, 10), " s"...)
	case s < 3600:
		big, bigUnit, small, smallUnit = s/60, " m", s%60, " s"
	case s < 86400:
		big, bigUnit, small, smallUnit = s/3600, " h", s%3600/60, " m"
	default:
		big, bigUnit, small, smallUnit = s/86400, " d", s%86400/3600, " h"
	}
	b = append(strconv.AppendInt(b, big, 10), bigUnit...)
	if small != 0 {
		b = append(strconv.AppendInt(append(b, ' '), small, 10), smallUnit...)
	}
	return b
}
