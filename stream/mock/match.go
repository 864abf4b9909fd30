package mock

import (
	"bytes"
	"encoding/json"
	"strings"

	"toolscope/model"
)

// decode is JSON text as Go values (nil for none or bad JSON).
func decode(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// canonical is v as JSON with object keys sorted: JSON-equal values have
// equal canonical text.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// paramsWithoutMeta is a request's params without _meta (a client's
// progress token, its info: not what the answer depends on).
func paramsWithoutMeta(raw json.RawMessage) any {
	v := decode(raw)
	if m, ok := v.(map[string]any); ok {
		if _, has := m["_meta"]; has {
			c := make(map[string]any, len(m))
			for k, x := range m {
				if k != "_meta" {
					c[k] = x
				}
			}
			return c
		}
	}
	return v
}

// matches says whether live arguments are JSON-equal to recorded ones; what
// the recording redacted matches anything in its place (it was a secret):
// a whole value, or the part of a string ("Bearer [redacted]").
func matches(recorded, live any) bool {
	if s, ok := recorded.(string); ok && strings.Contains(s, model.Redacted) {
		if s == model.Redacted {
			return true
		}
		l, ok := live.(string)
		return ok && matchesRedacted(s, l)
	}
	switch r := recorded.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok || len(l) != len(r) {
			return false
		}
		for k, rv := range r {
			lv, ok := l[k]
			if !ok || !matches(rv, lv) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(r) {
			return false
		}
		for i := range r {
			if !matches(r[i], l[i]) {
				return false
			}
		}
		return true
	}
	return canonical(recorded) == canonical(live)
}

// arguments are a call's arguments; none are the empty object (a client
// may send either).
func arguments(raw json.RawMessage) any {
	if v := decode(raw); v != nil {
		return v
	}
	return map[string]any{}
}

// matchesRedacted says whether live is recorded with something in place of
// each [redacted] (the parts between them in order).
func matchesRedacted(recorded, live string) bool {
	parts := strings.Split(recorded, model.Redacted)
	if !strings.HasPrefix(live, parts[0]) {
		return false
	}
	live = live[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(live, p)
		}
		j := strings.Index(live, p)
		if j < 0 {
			return false
		}
		live = live[j+len(p):]
	}
	return true
}
