package model

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes encoding/json writes as they are inside a
// string with HTML escaping on (its htmlSafeSet): ASCII, not a control,
// ", \, <, >, &. Bytes above ASCII are not plain: they start a rune that
// is decoded (invalid UTF-8, U+2028, U+2029).
var jsonPlain = func() (t [256]bool) {
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
// Runs of plain bytes are found with the table and copied whole: every
// string of every event passes here.
func appendStringContent(dst []byte, s string) []byte {
	start, i := 0, 0
	for {
		for i < len(s) && jsonPlain[s[i]] {
			i++
		}
		if i == len(s) {
			return append(dst, s[start:]...)
		}
		if c := s[i]; c < utf8.RuneSelf {
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
