package model

import "encoding/json"

// appendRawJSON writes a json.RawMessage as encoding/json embeds one:
// compacted, with <, >, & and U+2028/U+2029 escaped, and with term as
// TerminalSafeJSON rewrites it. Invalid JSON is the error json.Marshal
// gives for it.
func appendRawJSON(dst, raw []byte, term bool) ([]byte, error) {
	c := rawCompactor{src: raw, dst: dst, term: term}
	if !c.document() {
		return dst, marshalError(json.RawMessage(raw))
	}
	return c.written(), nil
}

// maxRawDepth is encoding/json's nesting limit: deeper is invalid.
const maxRawDepth = 10000

// rawCompactor checks src is JSON as encoding/json's scanner does and
// appends it compacted to dst in the same pass: whitespace outside strings
// goes, inside them the characters encoding/json escapes for HTML and
// JavaScript become \u escapes. Strings are not checked for UTF-8 (nor are
// they by encoding/json) unless term: then a string's text is rewritten
// as TerminalSafeJSON does (its bytes are decoded as runes). What is
// written as it was read is not copied token by token: src[from:i] is
// pending, copied whole when something else must be written (a rewrite,
// or whitespace left out) or at the end, so a compact document that needs
// no escape is one copy.
type rawCompactor struct {
	src  []byte
	i    int
	dst  []byte
	term bool
	from int
}

// written is dst with what is pending: the compacted document, once read.
func (c *rawCompactor) written() []byte { return append(c.dst, c.src[c.from:c.i]...) }

// rewrite copies what is pending up to src[i], which is then left out or
// replaced by what the caller appends; the next pending byte is src[next].
func (c *rawCompactor) rewrite(i, next int) {
	c.dst = append(c.dst, c.src[c.from:i]...)
	c.from = next
}

func (c *rawCompactor) skipSpace() {
	if c.i < len(c.src) && c.src[c.i] > ' ' { // most bytes are not space: inlined
		return
	}
	c.skipSpaceRun()
}

// skipSpaceRun is skipSpace's rare part, kept out of line so that the
// check before it is inlined at each of its many calls.
//
//go:noinline
func (c *rawCompactor) skipSpaceRun() {
	start := c.i
	for c.i < len(c.src) {
		if b := c.src[c.i]; b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			break
		}
		c.i++
	}
	if c.i > start {
		c.rewrite(start, c.i)
	}
}

func (c *rawCompactor) key() bool {
	c.skipSpace()
	if c.i == len(c.src) || c.src[c.i] != '"' || !c.str() {
		return false
	}
	c.skipSpace()
	if c.i == len(c.src) || c.src[c.i] != ':' {
		return false
	}
	c.i++
	return true
}

func (c *rawCompactor) literal(word string) bool {
	if len(c.src)-c.i < len(word) || string(c.src[c.i:c.i+len(word)]) != word {
		return false
	}
	c.i += len(word)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *rawCompactor) number() bool {
	s, start := c.src, c.i
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = skipDigitBytes(s, i+1)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if i++; i == len(s) || !isDigit(s[i]) {
			return false
		}
		i = skipDigitBytes(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i++; i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		i = skipDigitBytes(s, i)
	}
	c.i = i
	return true
}

func skipDigitBytes(s []byte, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
