package decoder

import "encoding/binary"

// JSON scanning primitives shared by the quick readers (the envelope
// reader over bytes, the token reader over a string): one grammar, written
// once.

// jsonText is what the readers read.
type jsonText interface{ ~string | ~[]byte }

// skipSpace is the index of the first byte at or after i that is not JSON
// whitespace.
func skipSpace[T jsonText](s T, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// numberEnd is the index just past the JSON number (RFC 8259 grammar)
// starting at s[j], or false when none starts there.
func numberEnd[T jsonText](s T, j int) (int, bool) {
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = skipDigits(s, j)
	default:
		return j, false
	}
	if j < len(s) && s[j] == '.' {
		if j++; j >= len(s) || s[j] < '0' || s[j] > '9' {
			return j, false
		}
		j = skipDigits(s, j)
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j >= len(s) || s[j] < '0' || s[j] > '9' {
			return j, false
		}
		j = skipDigits(s, j)
	}
	return j, true
}

func skipDigits[T jsonText](s T, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// hex4 reads four hex digits at s[i:].
func hex4[T jsonText](s T, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		switch c := s[k]; {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// plainRun is the index of the first byte from s[j] that ends a run of
// string text needing no attention: a quote, a backslash or a control
// byte (len(s) when none does). It reads eight bytes at a time, since
// string values (arguments, text) are most of a body.
func plainRun(s []byte, j int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(s); j += 8 {
		x := binary.LittleEndian.Uint64(s[j:])
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		// Each term is non-zero exactly when some byte is below 0x20, or
		// is zero after the xor (so was a quote or a backslash).
		if (x-ones*0x20)&^x&highs|(quote-ones)&^quote&highs|(backslash-ones)&^backslash&highs != 0 {
			break
		}
	}
	for ; j < len(s); j++ {
		if c := s[j]; c < 0x20 || c == '"' || c == '\\' {
			return j
		}
	}
	return j
}
