package model

// maxLoopDepth is how deep documentLoop nests: a bit of one word says
// whether each open container is an object. What a tool sends is shallow;
// a deeper document is read again by the recursive reader (value).
const maxLoopDepth = 64

// documentLoop is document in one loop, without a call per container and
// value: ok says the document is valid JSON, deep that it nests deeper than
// maxLoopDepth (c is then part-read: the caller starts again).
func (c *rawCompactor) documentLoop() (ok, deep bool) {
	s := c.src
	var objects uint64 // bit d: the container open at depth d+1 is an object
	depth := 0
	for {
		// A value.
		c.skipSpace()
		if c.i == len(s) {
			return false, false
		}
		switch b := s[c.i]; {
		case b == '{' || b == '[':
			if depth == maxLoopDepth {
				return false, true
			}
			closing := byte(']')
			if b == '{' {
				closing = '}'
			}
			c.i++
			c.skipSpace()
			if c.i < len(s) && s[c.i] == closing {
				c.i++
				break // an empty container is a whole value
			}
			objects &^= 1 << depth
			if b == '{' {
				objects |= 1 << depth
			}
			depth++
			if b == '{' && !c.key() {
				return false, false
			}
			continue // its first value
		case b == '"':
			if !c.str() {
				return false, false
			}
		case b == '-' || isDigit(b):
			if !c.number() {
				return false, false
			}
		case b == 't':
			if !c.literal("true") {
				return false, false
			}
		case b == 'f':
			if !c.literal("false") {
				return false, false
			}
		case b == 'n':
			if !c.literal("null") {
				return false, false
			}
		default:
			return false, false
		}
		// After a value: the containers it ends, then a comma and the next.
		for {
			c.skipSpace()
			if depth == 0 {
				return c.i == len(s), false
			}
			if c.i == len(s) {
				return false, false
			}
			object := objects>>(depth-1)&1 == 1
			closing := byte(']')
			if object {
				closing = '}'
			}
			if b := s[c.i]; b == closing {
				c.i++
				depth--
				continue
			} else if b != ',' {
				return false, false
			}
			c.i++
			if object && !c.key() {
				return false, false
			}
			break
		}
	}
}
