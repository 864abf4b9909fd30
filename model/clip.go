package model

import "unicode/utf8"

// Clip keeps at most n bytes of s, never splitting a character, and ends
// a cut text with "…": untrusted text in a message or a line stays short.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ShortID keeps the first 8 bytes of a long id (never splitting a
// character), as the screen and text lines show it.
func ShortID(id string) string {
	if len(id) <= 8 {
		return id
	}
	n := 8
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	return id[:n]
}
