package decoder

import "unsafe"

// detailArena holds a verification's step details in one allocation
// instead of one each: a detail is appended to the buffer and handed out as
// a string over its bytes. Those bytes are never written again (a full
// buffer is replaced, never grown in place), so the strings stay immutable.
type detailArena struct{ buf []byte }

// detailArenaSize fits the details of a valid call (signature, tool, meta:
// about 190 bytes with a short tool name); longer ones take a new buffer.
const detailArenaSize = 192

// keep returns b as a string held by the arena.
func (a *detailArena) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(detailArenaSize, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}
