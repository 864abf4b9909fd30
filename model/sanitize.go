package model

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes a wire string safe to put on a terminal as one line:
// escape and other control characters become visible, inert symbols (ESC is
// shown as ␛, so "␛]52;c;..." is seen for what it is rather than obeyed),
// line breaks become ⏎, invalid UTF-8 becomes U+FFFD and bidirectional
// overrides are shown as � so text cannot reorder itself.
func Sanitize(s string) string { return sanitize(s, false) }

// SanitizeBlock is Sanitize for multi-line text: newlines are kept, tabs
// become spaces.
func SanitizeBlock(s string) string { return sanitize(s, true) }

func sanitize(s string, keepNewlines bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteRune('⏎')
		case r == '\t':
			if keepNewlines {
				b.WriteString("    ")
			} else {
				b.WriteByte(' ')
			}
		case r == '\r':
			if !keepNewlines {
				b.WriteRune('␍')
			}
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Unicode control pictures: ␛, ␇, ...
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r < 0xa0: // C1 controls (0x9b is a one-byte CSI)
			b.WriteRune('\uFFFD')
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
