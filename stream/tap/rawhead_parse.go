package tap

import (
	"bytes"
	"strings"
	"toolscope/model"
)

// Reading one request head: where it ends, its request line, its framing
// and the fields a tools/call's SOAT bag may need (see rawhead.go).

// headEnd is the index just past the head's empty line, or -1.
func headEnd(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j
		// An empty line: "\n\n" or "\n\r\n".
		if i+1 < len(b) && b[i+1] == '\n' {
			return i + 2
		}
		if i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n' {
			return i + 3
		}
	}
	return -1
}

// parseHead records a head and sets the framing of its body. Of its
// fields only the count and those that may be SOAT keys are kept: their
// names and values, and the target, are substrings of one string.
func (c *headConn) parseHead(head []byte) {
	first, rest, _ := bytes.Cut(bytes.TrimRight(head, "\r\n"), []byte("\n"))
	var reqLine [3][]byte
	n := 0
	for f := range bytes.FieldsSeq(first) {
		if n == len(reqLine) {
			n++
			break
		}
		reqLine[n] = f
		n++
	}
	if n != len(reqLine) {
		c.state = rawOff
		return
	}
	fr, ok := c.readFields(rest)
	if !ok || len(c.heads) >= maxRawHeads {
		c.state = rawOff
		return
	}
	c.heads = append(c.heads, c.newRawHead(reqLine[0], reqLine[1], rest, fr))
	switch {
	case fr.upgrade:
		c.state = rawOff // the connection may become another protocol
	case fr.chunked:
		c.state = rawChunkSize
	case fr.length > 0:
		c.state, c.remain = rawBody, fr.length
	default:
		c.state = rawHeadState
	}
}

// headFields is what parseHead learns from a head's field lines.
type headFields struct {
	count            int
	length           int64
	chunked, upgrade bool
	soatFields       int // fields that may be SOAT keys
	soatBytes        int // and the bytes of their names and values
}

// readFields reads the field lines of a head; false when one is folded or
// broken (net/http decides, names unknown).
func (c *headConn) readFields(lines []byte) (headFields, bool) {
	fr := headFields{length: -1}
	for len(lines) > 0 {
		name, value, rest, ok := nextField(lines)
		if !ok {
			return fr, false
		}
		lines = rest
		switch {
		case model.EqualFoldASCII(name, "Host"):
			continue // net/http keeps it out of r.Header
		case model.EqualFoldASCII(name, "Content-Length"):
			if n, ok := parseContentLength(value); ok && n >= 0 {
				fr.length = n
			}
		case model.EqualFoldASCII(name, "Transfer-Encoding"):
			fr.chunked = fr.chunked || model.ContainsFoldASCII(value, "chunked")
			continue // nor this one
		case model.EqualFoldASCII(name, "Upgrade"):
			fr.upgrade = true
		}
		fr.count++
		if mayBeSoat(name, c.soatPrefix()) {
			fr.soatFields++
			fr.soatBytes += len(name) + len(value)
		}
	}
	return fr, true
}

// nextField is the name and value of the first of lines, and the lines
// after it; false when that line is folded or broken.
func nextField(lines []byte) (name, value, rest []byte, ok bool) {
	line, rest, _ := bytes.Cut(lines, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	name, value, ok = bytes.Cut(line, []byte(":"))
	if !ok || len(name) == 0 || line[0] == ' ' || line[0] == '\t' {
		return nil, nil, nil, false
	}
	return name, bytes.Trim(value, " \t"), rest, true
}

// newRawHead is the rawHead of a request line and its field lines (read
// once already into fr); the fields kept are copied in one string.
func (c *headConn) newRawHead(method, target, lines []byte, fr headFields) rawHead {
	h := rawHead{method: knownMethod(method), count: fr.count}
	if h.method == "" {
		h.method = string(method)
	}
	// A connection's requests mostly go to one target: the last one's
	// string serves again.
	if string(target) != c.lastTarget {
		c.lastTarget = string(target)
	}
	h.target = c.lastTarget
	if fr.soatFields == 0 {
		return h
	}
	var b strings.Builder
	b.Grow(fr.soatBytes)
	// Twice over the lines (read whole before: no error now): first the
	// text, then the fields as substrings of it.
	kept := func(name []byte) bool {
		return mayBeSoat(name, c.soatPrefix()) && !model.EqualFoldASCII(name, "Host") && !model.EqualFoldASCII(name, "Transfer-Encoding")
	}
	for rest := lines; len(rest) > 0; {
		name, value, next, _ := nextField(rest)
		if rest = next; kept(name) {
			b.Write(name)
			b.Write(value)
		}
	}
	text := b.String()
	h.fields = make([]rawField, 0, fr.soatFields)
	for rest := lines; len(rest) > 0; {
		name, value, next, _ := nextField(rest)
		if rest = next; kept(name) {
			f := rawField{name: text[:len(name)], value: text[len(name) : len(name)+len(value)]}
			text = text[len(name)+len(value):]
			h.fields = append(h.fields, f)
		}
	}
	return h
}
