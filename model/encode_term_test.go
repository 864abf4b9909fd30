package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// Text written terminal safe in one pass is what TerminalSafeJSON makes of
// it written plain, for strings and for the strings of raw JSON.
func FuzzTerminalSafeInOnePass(f *testing.F) {
	for _, s := range []string{"", "plain", "\x7f", "\u009b[31m", "\u202e\u2066\u200f\u061c", "\u2028\u2029",
		"\xe2\x80", "\xe2\x80\xe2\x80\xa8", "\xf0\xe2\x80\xae", "\xed\xa0\x80", "\xef\xbf\xbd", "<&>\x00\n\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		onePass := appendString(nil, s, true)
		if want := TerminalSafeJSON(appendString(nil, s, false)); string(onePass) != string(want) {
			t.Errorf("appendString(%q) = %q, want %q", s, onePass, want)
		}
		raw, _ := json.Marshal(s)
		raw = append(append([]byte(`{`), raw...), ':', '"')
		raw = append(append(raw, s...), `"}`...)
		plain, plainErr := appendRawJSON(nil, raw, false)
		safe, safeErr := appendRawJSON(nil, raw, true)
		if (plainErr == nil) != (safeErr == nil) {
			t.Fatalf("appendRawJSON(%q): error %v terminal safe, %v plain", raw, safeErr, plainErr)
		}
		if want := TerminalSafeJSON(plain); string(safe) != string(want) {
			t.Errorf("appendRawJSON(%q) = %q, want %q", raw, safe, want)
		}
	})
}

// The one-loop reader writes a raw document as encoding/json embeds it
// (compacted, HTML characters escaped), and terminal safe as
// TerminalSafeJSON makes that; what encoding/json rejects it rejects.
func FuzzRawJSONMatchesMarshal(f *testing.F) {
	for _, s := range []string{``, ` `, `1`, ` {"a" : [1, {}, [], "x"] } `, `[1,]`, `{"a":1,}`, `{"a"}`, `[[[]]]]`,
		`{"a":{"b":{"c":[true,false,null]}}}`, `[` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 71), `"\u2028<>&\x7f"`, `-0.5e+3`, `{,}`, `[1 2]`, `{"a":1 "b":2}`} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, term bool) {
		got, err := appendRawJSON([]byte("x"), raw, term)
		want, wantErr := json.Marshal(json.RawMessage(raw))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("appendRawJSON(%q): error %v, json.Marshal's %v", raw, err, wantErr)
		}
		if err != nil {
			return
		}
		if term {
			want = TerminalSafeJSON(want)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("appendRawJSON(%q, %v) = %q, want %q", raw, term, got[1:], want)
		}
	})
}
