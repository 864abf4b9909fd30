package model

// Eight bytes at a time: most of an event's text is plain ASCII, and a
// word of it is judged with a few integer operations instead of eight table
// lookups (encode_string.go's appendStringContent).

const ones, highs = 0x0101010101010101, 0x8080808080808080

// plainWords is the index of the first word (eight bytes) of s at or after
// i that holds a byte not plain in a JSON string, or of the last bytes,
// fewer than eight. Plain is jsonPlain's: ASCII, not a control, ", \, <, >
// or &; nor DEL when extra is 0x7f*ones (termPlain; extra is '\\'*ones
// otherwise, a byte already excluded). (x-ones)&^x&highs is non-zero
// exactly when some byte of x is zero: a borrow runs only past a zero byte.
func plainWords[T string | []byte](s T, i int, extra uint64) int {
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// " (0x22) and & (0x26) differ in bit 2 only, < (0x3c) and > (0x3e) in bit 1
		q, l, bs, x := (w|4*ones)^0x26*ones, (w|2*ones)^0x3e*ones, w^'\\'*ones, w^extra
		bad := w | (w-0x20*ones)&^w | (q-ones)&^q | (l-ones)&^l | (bs-ones)&^bs | (x-ones)&^x
		if bad&highs != 0 { // above ASCII, below space, or one of the bytes
			break
		}
	}
	return i
}
