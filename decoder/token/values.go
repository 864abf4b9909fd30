package token

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"toolscope/model"
)

// jsonEqual compares two JSON values as JSON: objects regardless of key
// order, numbers by value. Values decoded by encoding/json are compared
// directly; anything else goes through a JSON round trip.
func jsonEqual(a, b any) bool {
	if eq, ok := plainEqual(a, b); ok {
		return eq
	}
	na, errA := normalizeJSON(a)
	nb, errB := normalizeJSON(b)
	if errA != nil || errB != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}

// plainEqual compares values of the types encoding/json decodes into; ok is
// false when it meets another type.
func plainEqual(a, b any) (eq, ok bool) {
	switch x := a.(type) {
	case nil:
		return b == nil, isPlain(b)
	case string:
		y, isStr := b.(string)
		return isStr && x == y, isPlain(b)
	case bool:
		y, isBool := b.(bool)
		return isBool && x == y, isPlain(b)
	case float64:
		y, isNum := b.(float64)
		return isNum && x == y, isPlain(b)
	case []any:
		y, isArr := b.([]any)
		if !isArr {
			return false, isPlain(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if eq, ok := plainEqual(x[i], y[i]); !ok || !eq {
				return false, ok
			}
		}
		return true, true
	case map[string]any:
		y, isObj := b.(map[string]any)
		if !isObj {
			return false, isPlain(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for k, xv := range x {
			yv, present := y[k]
			if !present {
				return false, true
			}
			if eq, ok := plainEqual(xv, yv); !ok || !eq {
				return false, ok
			}
		}
		return true, true
	}
	return false, false
}

func isPlain(v any) bool {
	switch v.(type) {
	case nil, string, bool, float64, []any, map[string]any:
		return true
	}
	return false
}

func normalizeJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
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
		return fmt.Sprintf("%q", model.Clip(s, 80))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	return model.Clip(string(b), 80)
}

// HumanDuration renders a duration the way toolscope speaks of token ages:
// "12 s", "4 m 48 s", "2 h 5 m", "3 d 4 h". Negative durations are rendered
// by their magnitude.
func HumanDuration(d time.Duration) string {
	var buf [24]byte
	b := buf[:0]
	if d < 0 {
		d = -d
	}
	s := int64(d.Round(time.Second) / time.Second)
	var big, small int64
	var bigUnit, smallUnit string
	switch {
	case s < 60:
		return string(append(strconv.AppendInt(b, s, 10), " s"...))
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
	return string(b)
}
