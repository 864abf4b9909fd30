package ui

// jsonKey names one rendering of a JSON value: the same bytes (a store's
// values are immutable, so their address names them) at the same indent
// and width render the same lines.
type jsonKey struct {
	data          *byte
	size          int
	indent, width int
}

// jsonCache keeps the rendered JSON blocks of the call in the detail view,
// so the redraw every second (relative times move) does not redo them.
type jsonCache struct {
	m     map[jsonKey]string
	built int // blocks rendered because they were not kept
}

// maxJSONCached blocks are kept: a call's arguments and structured content,
// at a width or two.
const maxJSONCached = 8

func (c *jsonCache) get(k jsonKey) (string, bool) {
	if c == nil {
		return "", false
	}
	s, ok := c.m[k]
	return s, ok
}

func (c *jsonCache) put(k jsonKey, s string) {
	if c == nil {
		return
	}
	if c.m == nil || len(c.m) >= maxJSONCached {
		c.m = make(map[jsonKey]string, maxJSONCached)
	}
	c.m[k] = s
	c.built++
}
