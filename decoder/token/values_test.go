package token

import (
	"encoding/json"
	"testing"
	"time"
)

func TestJSONEqual(t *testing.T) {
	var reordered any
	must(json.Unmarshal([]byte(`{"b":[1,{"y":2,"x":1}],"a":"s"}`), &reordered))
	cases := []struct {
		rule string
		a, b any
		want bool
	}{
		{"objects are equal regardless of key order", map[string]any{"a": "s", "b": []any{1.0, map[string]any{"x": 1.0, "y": 2.0}}}, reordered, true},
		{"arrays keep their order", []any{1.0, 2.0}, []any{2.0, 1.0}, false},
		{"a string is not a number", "1", 1.0, false},
		{"null equals null", nil, nil, true},
		{"null is not false", nil, false, false},
		{"an extra key differs", map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": 2.0}, false},
		{"a missing key differs", map[string]any{"a": 1.0, "c": nil}, map[string]any{"a": 1.0, "b": nil}, false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			if got := jsonEqual(c.a, c.b); got != c.want {
				t.Fatalf("jsonEqual = %v", got)
			}
			if got := jsonEqual(c.b, c.a); got != c.want {
				t.Fatalf("not symmetric")
			}
		})
	}
}

func TestHumanDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{12 * time.Second, "12 s"}, {4*time.Minute + 48*time.Second, "4 m 48 s"}, {10 * time.Minute, "10 m"},
		{2*time.Hour + 5*time.Minute, "2 h 5 m"}, {3 * time.Hour, "3 h"}, {76 * time.Hour, "3 d 4 h"}, {-90 * time.Second, "1 m 30 s"},
		{1400 * time.Millisecond, "1 s"},
	}
	for _, c := range cases {
		if got := HumanDuration(c.d); got != c.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestAppendQuote: the quick path quotes as strconv.AppendQuote does.
