package model

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// jsonPlain marks the ASCII bytes encoding/json writes as they are inside a
// string with HTML escaping on (its htmlSafeSet): not a control, ", \, <, >, &.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString writes s as a JSON string exactly as encoding/json does.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendStringContent(dst, s)
	return append(dst, '"')
}

// appendStringContent is appendString without the quotes: encoding/json's
// escaping (HTML characters, U+2028 and U+2029, invalid UTF-8 as \ufffd).
func appendStringContent(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendASCIIEscape(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

func appendASCIIEscape(dst []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
