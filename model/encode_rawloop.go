package model

// document reads one JSON document in one loop, without a call per
// container and value, and says whether it is valid JSON (nested at most
// maxRawDepth deep). A bit per open container says whether it is an object:
// one word on the stack holds what a tool sends (64 deep); a deeper
// document grows the stack.
func (c *rawCompactor) document() bool {
	s := c.src
	var first [1]uint64
	objects := first[:] // bit d: the container open at depth d+1 is an object
	depth := 0
	for {
		// A value.
		c.skipSpace()
		if c.i == len(s) {
			return false
		}
		switch b := s[c.i]; {
		case b == '{' || b == '[':
			if depth == maxRawDepth {
				return false
			}
			if depth == 64*len(objects) {
				objects = append(objects, 0)
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
			objects[depth/64] &^= 1 << (depth % 64)
			if b == '{' {
				objects[depth/64] |= 1 << (depth % 64)
			}
			depth++
			if b == '{' && !c.key() {
				return false
			}
			continue // its first value
		case b == '"':
			if !c.str() {
				return false
			}
		case b == '-' || isDigit(b):
			if !c.number() {
				return false
			}
		case b == 't':
			if !c.literal("true") {
				return false
			}
		case b == 'f':
			if !c.literal("false") {
				return false
			}
		case b == 'n':
			if !c.literal("null") {
				return false
			}
		default:
			return false
		}
		// After a value: the containers it ends, then a comma and the next.
		for {
			c.skipSpace()
			if depth == 0 {
				return c.i == len(s)
			}
			if c.i == len(s) {
				return false
			}
			object := objects[(depth-1)/64]>>((depth-1)%64)&1 == 1
			closing := byte(']')
			if object {
				closing = '}'
			}
			if b := s[c.i]; b == closing {
				c.i++
				depth--
				continue
			} else if b != ',' {
				return false
			}
			c.i++
			if object && !c.key() {
				return false
			}
			break
		}
	}
}
