package decoder

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"
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
		return fmt.Sprintf("%q", clip(s))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	return clip(string(b))
}

// clip shortens s to 80 characters.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return truncateRunes(s, max) + "…"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortStrings(s []string) { sort.Strings(s) }

// HumanDuration renders a duration the way toolscope speaks of token ages:
// "12 s", "4 m 48 s", "2 h 5 m", "3 d 4 h". Negative durations are rendered
// by their magnitude.
func HumanDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%d m", s/60)
		}
		return fmt.Sprintf("%d m %d s", s/60, s%60)
	case s < 86400:
		if s%3600/60 == 0 {
			return fmt.Sprintf("%d h", s/3600)
		}
		return fmt.Sprintf("%d h %d m", s/3600, s%3600/60)
	}
	if s%86400/3600 == 0 {
		return fmt.Sprintf("%d d", s/86400)
	}
	return fmt.Sprintf("%d d %d h", s/86400, s%86400/3600)
}
