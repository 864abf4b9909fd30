package model

import (
	"encoding/binary"
	"unicode/utf8"
)

// TerminalSafeJSON rewrites marshalled JSON so that a line viewed on a
// terminal (`--output json`, `cat recording.jsonl`, a call the screen
// copies to the clipboard) cannot drive it: DEL, C1
// controls (0x9b is a one-byte CSI), bidirectional overrides and the line
// and paragraph separators become \u escapes, invalid UTF-8 becomes \ufffd. encoding/json already escapes C0
// controls in strings, but not these, and passes json.RawMessage fields
// through as they came. Outside strings valid JSON is plain ASCII, so every
// rewrite lands inside a string and the value read back is unchanged.
// Bytes that are already safe are returned as they are, not copied.
func TerminalSafeJSON(b []byte) []byte {
	var out []byte // nil until the first rewrite
	kept := 0      // b[:kept] is in out
	for i := 0; i < len(b); {
		if i+8 <= len(b) && plainASCII8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
			continue
		}
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		invalid := r == utf8.RuneError && size == 1
		if r != 0x7f && !invalid && !unsafeForTerminal(r) {
			i += size
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+16)
		}
		out = append(out, b[kept:i]...)
		if invalid {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		}
		i += size
		kept = i
	}
	if out == nil {
		return b
	}
	return append(out, b[kept:]...)
}

// plainASCII8 says whether eight bytes are all ASCII and none is DEL.
func plainASCII8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if w&highs != 0 {
		return false
	}
	del := w ^ (0x7f * ones) // a DEL byte becomes zero
	return (del-ones)&^del&highs == 0
}

const hexDigits = "0123456789abcdef"

// unsafeForTerminal: C1 controls, the bidirectional controls that let
// text reorder itself on screen, and the line and paragraph separators
// (U+2028, U+2029) some viewers break lines at.
func unsafeForTerminal(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029
}
