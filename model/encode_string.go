package model

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes encoding/json writes as they are inside a
// string with HTML escaping on (its htmlSafeSet): ASCII, not a control,
// ", \, <, >, &. Bytes above ASCII are not plain: they start a rune that
// is decoded (invalid UTF-8, U+2028, U+2029). termPlain is jsonPlain
// without DEL, which TerminalSafeJSON rewrites.
var jsonPlain, termPlain = func() (t, term [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	term = t
	term[0x7f] = false
	return t, term
}()

// appendString writes s as a JSON string exactly as encoding/json does,
// with term also as TerminalSafeJSON rewrites it.
func appendString(dst []byte, s string, term bool) []byte {
	dst = append(dst, '"')
	dst = appendStringContent(dst, s, term)
	return append(dst, '"')
}

// appendStringContent is appendString without the quotes: encoding/json's
// escaping (HTML characters, U+2028 and U+2029, invalid UTF-8 as \ufffd)
// and with term TerminalSafeJSON's (DEL, C1 and bidi controls as \u
// escapes): a line needs no second pass to be safe on a terminal. Runs of
// plain bytes are found with the table and copied whole: every string of
// every event passes here.
func appendStringContent(dst []byte, s string, term bool) []byte {
	plain := &jsonPlain
	if term {
		plain = &termPlain
	}
	start, i := 0, 0
	for {
		i = plainRun(s, i, plain)
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
		if runeEscaped(r, size, term) {
			dst = append(dst, s[start:i]...)
			dst = appendRuneEscape(dst, r, size)
			start = i + size
		}
		i += size
	}
}

// runeEscaped says whether the rune r (size bytes in a string) is written
// as an escape by encoding/json (invalid UTF-8, a RuneError of one byte;
// U+2028, U+2029) or, with term, by TerminalSafeJSON.
func runeEscaped(r rune, size int, term bool) bool {
	return (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' || (term && unsafeForTerminal(r))
}

// appendRuneEscape writes the escape runeEscaped says r is written as.
func appendRuneEscape(dst []byte, r rune, size int) []byte {
	if r == utf8.RuneError && size == 1 {
		return append(dst, `\ufffd`...)
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
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
	// a control, an HTML character or (termPlain) DEL
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
