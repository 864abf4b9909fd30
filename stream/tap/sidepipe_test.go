package tap

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestSidePipeNeverBlocksAndBoundsMemory(t *testing.T) {
	p := newSidePipe(1000)
	var wrote []byte
	for i := 0; i < 10; i++ { // 3000 bytes with no reader: never blocks
		chunk := bytes.Repeat([]byte{byte('a' + i)}, 300)
		chunk[0] = byte('0' + i)
		write(p, chunk)
		wrote = append(wrote, chunk...)
		if len(p.ring) > 1000 {
			t.Fatalf("holds %d bytes over its limit", len(p.ring))
		}
	}
	p.finish(io.EOF)
	got, gaps := drain(t, p, 128)
	// The latest bytes are kept: the end of a stream is where its result is.
	if want := wrote[len(wrote)-1000:]; !bytes.Equal(got, want) || gaps != 1 {
		t.Errorf("read %q with %d gaps, want the last 1000 bytes written %q after one gap", got, gaps, want)
	}
}

// drain reads p to its end, n bytes at a time; gaps counts errGap.
func drain(t *testing.T, p *sidePipe, n int) (got []byte, gaps int) {
	t.Helper()
	buf := make([]byte, n)
	for {
		k, err := p.Read(buf)
		got = append(got, buf[:k]...)
		switch {
		case err == errGap:
			gaps++
		case err == io.EOF:
			return got, gaps
		case err != nil:
			t.Fatalf("end %v", err)
		}
	}
}

// TestSidePipeKeepsOrder: a reader that keeps up gets every byte in order,
// whatever the chunk sizes and however the ring wraps.
func TestSidePipeKeepsOrder(t *testing.T) {
	p := newSidePipe(4096)
	var wrote, got []byte
	buf := make([]byte, 700)
	for i := 0; i < 2000; i++ {
		chunk := make([]byte, 1+i*37%1500)
		for j := range chunk {
			chunk[j] = byte(i + j)
		}
		write(p, chunk)
		wrote = append(wrote, chunk...)
		for !caughtUp(p) {
			n, err := p.Read(buf)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			got = append(got, buf[:n]...)
		}
	}
	if !bytes.Equal(got, wrote) {
		t.Fatalf("read %d bytes, %d written, not the same", len(got), len(wrote))
	}
}

// TestSidePipeGapThenTail: a reader that fell behind is told of the gap
// before the bytes that follow it, and those are the latest ones.
func TestSidePipeGapThenTail(t *testing.T) {
	p := newSidePipe(4096)
	write(p, bytes.Repeat([]byte("a"), 3000))
	buf := make([]byte, 1000)
	if n, err := p.Read(buf); n != 1000 || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	write(p, bytes.Repeat([]byte("b"), 3000)) // 5000 unread: the 904 oldest dropped
	write(p, []byte("tail"))                  // and 4 more
	p.finish(io.EOF)
	got, gaps := drain(t, p, 1000)
	want := strings.Repeat("a", 1092) + strings.Repeat("b", 3000) + "tail"
	if string(got) != want || gaps != 1 {
		t.Errorf("read %d bytes (%d gaps), want %d after one gap", len(got), gaps, len(want))
	}
	// One write over the limit keeps its end.
	p = newSidePipe(4096)
	big := bytes.Repeat([]byte("x"), 10000)
	copy(big[len(big)-4:], "done")
	write(p, big)
	p.finish(io.EOF)
	got, gaps = drain(t, p, 1<<20)
	if len(got) != 4096 || !bytes.HasSuffix(got, []byte("done")) || gaps != 1 {
		t.Errorf("read %d bytes ending %q, %d gaps", len(got), got[max(0, len(got)-4):], gaps)
	}
}

func TestSidePipeStopDropsWrites(t *testing.T) {
	p := newSidePipe(1 << 20)
	write(p, []byte("abc"))
	p.stop()
	write(p, []byte("def"))
	p.finish(errClientGone)
	if err := p.wait(); err != errClientGone || p.n != 0 {
		t.Errorf("wait = %v, buffered %d", err, p.n)
	}
}

// write copies b in and wakes the reader, as the tee does over two Reads.
func write(p *sidePipe, b []byte) {
	p.put(b)
	p.signal()
}

// caughtUp says whether the reader has read every byte written so far.
func caughtUp(p *sidePipe) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n == 0
}
