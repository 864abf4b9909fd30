package model

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
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

// ShortID is a long id as the screen and the text lines show it:
// sanitised and cut to its first 8 cells, between characters (a byte cut
// could split one and send broken UTF-8 to the terminal).
func ShortID(id string) string {
	if id = Sanitize(id); !IsASCII(id) {
		return ansi.Truncate(id, 8, "")
	}
	return id[:min(len(id), 8)] // sanitised ASCII: one byte, one cell
}

// Clip is untrusted text as a message or an attribute carries it:
// sanitised and cut to at most n bytes (Truncate).
func Clip(s string, n int) string { return Truncate(Sanitize(s), n) }

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

// ContainsFoldASCII reports whether s holds lower (lower case) in any ASCII
// case.
func ContainsFoldASCII[S ~string | ~[]byte](s S, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if EqualFoldASCII(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// IsASCII reports whether s holds only ASCII bytes.
func IsASCII[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
