package feed

import (
	"bytes"
	"io"
	"testing"
)

// chunkReader returns its data k bytes at a time, then err.
type chunkReader struct {
	data []byte
	k    int
	err  error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.err
	}
	n := copy(p[:min(len(p), c.k)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// FuzzFrameGuard: whatever the bytes and however they arrive, the guard
// passes them through unchanged, adds a closing line only when a frame was
// left open, and never hands out more than one frame in a read.
func FuzzFrameGuard(f *testing.F) {
	f.Add([]byte("event: a\ndata: 1\n\n"), 3, 7)
	f.Add([]byte("data: 1\r\n\r\ndata: 2\r\n\r"), 1, 4096)
	f.Add([]byte("data: x\r\rdata: y\n\r\ndata: {\"a\""), 5, 2)
	f.Add([]byte(": c\n\n\n\n\r\n\r\n"), 2, 1)
	f.Fuzz(func(t *testing.T, in []byte, chunk, readSize int) {
		chunk = 1 + abs(chunk)%4096
		readSize = 1 + abs(readSize)%8192
		g := newFrameGuard(io.NopCloser(&chunkReader{data: bytes.Clone(in), k: chunk, err: io.EOF}), 1<<20)
		var out []byte
		buf := make([]byte, readSize)
		for reads := 0; ; reads++ {
			if reads > 2*(len(in)+64) {
				t.Fatal("no end")
			}
			n, err := g.Read(buf)
			if end, _ := findFrameEnd(buf[:n], 0); end >= 0 && end < n {
				// A read may end on a frame's end, never run past one.
				if rest, _ := findFrameEnd(buf[:n], end); rest >= 0 || !onlyClosing(buf[end:n]) {
					t.Fatalf("one read holds more than one frame: %q", buf[:n])
				}
			}
			out = append(out, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.HasPrefix(out, in) {
			t.Fatalf("bytes changed:\n in %q\nout %q", in, out)
		}
		extra := out[len(in):]
		if len(extra) > 0 && !bytes.HasSuffix(extra, []byte("event: "+truncatedEvent+"\n\n")) {
			t.Fatalf("unexpected tail %q", extra)
		}
	})
}

// onlyClosing: what follows a frame end in one read can only be an
// incomplete line break of the same stream (never the start of new text).
func onlyClosing(b []byte) bool {
	for _, c := range b {
		if c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
