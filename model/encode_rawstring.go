package model

import "unicode/utf8"

// rawStringPlain marks the bytes a raw JSON string is copied with as they
// are: not its end, an escape, a control (invalid), an HTML character or
// the first byte of U+2028/U+2029. Bytes above ASCII are not checked for
// UTF-8, as encoding/json does not check them. rawTermPlain is the table
// of a terminal-safe line: DEL and every byte above ASCII are looked at.
var rawStringPlain, rawTermPlain = func() (t, term [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != 0xE2
		term[c] = t[c] && c < 0x7f
	}
	return t, term
}()

// str reads a string at c.i (its opening quote) and appends it with
// encoding/json's escapes of <, >, &, U+2028 and U+2029 (and with c.term
// TerminalSafeJSON's).
func (c *rawCompactor) str() bool {
	s := c.src
	plain := &rawStringPlain
	if c.term {
		plain = &rawTermPlain
	}
	for i := c.i + 1; i < len(s); {
		i = plainRun(s, i, plain)
		if i == len(s) {
			break
		}
		b := s[i]
		switch {
		case b == '"':
			c.i = i + 1
			return true
		case b == '\\':
			n := validEscape(s[i+1:])
			if n == 0 {
				return false
			}
			i += 1 + n
		case b < 0x20:
			return false
		case c.term && b >= 0x7f:
			// The rune is decoded from the source as TerminalSafeJSON
			// decodes the output: the two differ only at ASCII bytes and
			// whole escaped runes, where no multi-byte rune starts or ends.
			r, size := rune(b), 1
			if b > 0x7f {
				r, size = utf8.DecodeRune(s[i:])
			}
			if r == 0x7f || runeEscaped(r, size, true) {
				c.rewrite(i, i+size)
				c.dst = appendRuneEscape(c.dst, r, size)
			}
			i += size
		case b == 0xE2:
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
				c.rewrite(i, i+3)
				c.dst = append(c.dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
				i += 3
			} else {
				i++
			}
		default: // <, >, &
			c.rewrite(i, i+1)
			c.dst = append(c.dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			i++
		}
	}
	return false
}

// validEscape is the length of the escape after a backslash, 0 when it is
// not one JSON allows.
func validEscape(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	switch s[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(s) < 5 {
			return 0
		}
		for _, h := range s[1:5] {
			if !isDigit(h) && !('a' <= h && h <= 'f') && !('A' <= h && h <= 'F') {
				return 0
			}
		}
		return 5
	}
	return 0
}
