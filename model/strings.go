package model

import (
	"strings"
	"unicode/utf8"
)

// Truncate keeps at most n bytes of s, never splitting a character, and
// ends a cut text with "…": untrusted text in a message or a line stays
// short.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Prefix keeps at most n characters (code points) of s, never splitting
// one. A cut prefix is a copy: what keeps it (the store, a recording) does
// not keep the whole text it was cut from.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return strings.Clone(s[:i])
		}
		count++
	}
	return s
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

// EqualFoldASCII reports whether a and b are equal without ASCII case:
// for header names, where a Unicode fold would let other letters (the
// Kelvin sign is a K) or invalid bytes match.
func EqualFoldASCII[A, B ~string | ~[]byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
