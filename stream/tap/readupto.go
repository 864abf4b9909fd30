package tap

import "io"

// maxPresize bounds the buffer sized from a declared length before the
// bytes arrive: a peer declaring megabytes and sending none holds no more.
const maxPresize = 64 << 10

// readUpTo reads r to its end or to limit+1 bytes, whichever comes first, as
// bytes.Buffer.ReadFrom(io.LimitReader(r, limit+1)) does (an error other
// than io.EOF is returned with what was read). A known size (-1 when
// unknown) sizes the buffer once, with a spare byte to see the end: a
// bytes.Buffer reads in 512-byte steps and copies a small body into a
// second, larger buffer.
func readUpTo(r io.Reader, size, limit int64) ([]byte, error) {
	max := limit + 1
	start := int64(512)
	if size >= 0 {
		start = min(size+1, maxPresize)
	}
	buf := make([]byte, 0, min(start, max))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= max {
				return buf, nil
			}
			grown := min(2*int64(cap(buf))+512, max)
			buf = append(make([]byte, 0, grown), buf...)
		}
		room := buf[len(buf):min(int64(cap(buf)), max)]
		n, err := r.Read(room)
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
