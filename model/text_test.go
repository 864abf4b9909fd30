package model

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"plain":                    "plain",
		"\x1b]52;c;ZXZpbA==\x07hi": "␛]52;c;ZXZpbA==␇hi",
		"\x1b[2J\x1b[31mred":       "␛[2J␛[31mred",
		"a\nb\tc\rd":               "a⏎b c␍d",
		"bad\xffutf8":              "bad\uFFFDutf8",
		"\u009b31m c1 csi":         "\uFFFD31m c1 csi",
		"rtl\u202eevil":            "rtl\uFFFDevil",
		"Reading sheet 5 of 23 ✓":  "Reading sheet 5 of 23 ✓",
		"инструменты":              "инструменты",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SanitizeBlock("a\nb\x1b[1m"); got != "a\nb␛[1m" {
		t.Errorf("SanitizeBlock = %q", got)
	}
}

func TestTextLineNeverSplitsACharacter(t *testing.T) {
	ev := Event{Time: t0, Kind: KindToolCall, TaskID: "задача-один", ToolCallID: "c", Arguments: json.RawMessage(`"` + strings.Repeat("ж", 100) + `"`)}
	line := TextLine(ev)
	if !utf8.ValidString(line) || strings.ContainsRune(line, utf8.RuneError) {
		t.Errorf("split character: %q", line)
	}
}
