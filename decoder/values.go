package decoder

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"
)

// jsonEqual compares two JSON values as JSON: objects regardless of key
// order, numbers by value.
func jsonEqual(a, b any) bool {
	na, errA := normalizeJSON(a)
	nb, errB := normalizeJSON(b)
	if errA != nil || errB != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
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
