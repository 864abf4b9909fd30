package model

import (
	"fmt"
	"unicode/utf8"
)

// TerminalSafeJSON rewrites marshalled JSON so that a line viewed on a
// terminal (`--output json`, `cat recording.jsonl`, a call the screen
// copies to the clipboard) cannot drive it: DEL, C1
// controls (0x9b is a one-byte CSI) and bidirectional overrides become \u
// escapes, invalid UTF-8 becomes \ufffd. encoding/json already escapes C0
// controls in strings, but not these, and passes json.RawMessage fields
// through as they came. Outside strings valid JSON is plain ASCII, so every
// rewrite lands inside a string and the value read back is unchanged.
func TerminalSafeJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				out = append(out, `\u007f`...)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case unsafeForTerminal(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// unsafeForTerminal: C1 controls and the bidirectional controls that let
// text reorder itself on screen.
func unsafeForTerminal(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}
