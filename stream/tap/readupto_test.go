package tap

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// readUpTo must read exactly what bytes.Buffer.ReadFrom over an
// io.LimitReader reads, whatever the size hint says (right, wrong or
// unknown) and however the reader hands out its bytes.
func TestReadUpToMatchesBufferReadFrom(t *testing.T) {
	broken := errors.New("broken")
	rng := rand.New(rand.NewPCG(1, 2))
	readers := map[string]func([]byte) io.Reader{
		"whole":      func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"data+EOF":   func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"half":       func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"then error": func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), iotest.ErrReader(broken)) },
	}
	for _, n := range []int{0, 1, 63, 511, 512, 513, 1000, 5000, 70000} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(rng.IntN(256))
		}
		for _, limit := range []int64{1, 512, 999, 1000, 4096, 1 << 20} {
			for _, hint := range []int64{-1, 0, int64(n), int64(n) / 2, int64(n) * 3} {
				for name, mk := range readers {
					var want bytes.Buffer
					_, wantErr := want.ReadFrom(io.LimitReader(mk(body), limit+1))
					got, err := readUpTo(mk(body), hint, limit)
					if !bytes.Equal(got, want.Bytes()) || !errors.Is(err, wantErr) && err != wantErr {
						t.Fatalf("%s, %d bytes, limit %d, hint %d: got %d bytes (%v), want %d bytes (%v)",
							name, n, limit, hint, len(got), err, want.Len(), wantErr)
					}
				}
			}
		}
	}
}
