package feed

import (
	"io"
	"net/http"
)

// truncatedEvent is the event name frameGuard gives a frame that the
// connection cut short. It is not a name a server sends; the feed drops such
// frames (a reconnect with Last-Event-ID brings the whole event back).
const truncatedEvent = "toolscope.truncated-frame"

// guardTransport wraps the body of every successful response in a
// frameGuard. It is how the feed configures r3labs/sse (through its
// Connection field) around two faults of its reader:
//
//   - When a stream ends or breaks in the middle of a frame, its scanner
//     hands the partial bytes over as if they were a whole event: a
//     malformed_event warning (or a wrong event) on every mid-event cut.
//   - Its splitter searches everything buffered for five blank-line patterns
//     each time it looks for an event: a backlog of small events costs each
//     one a scan of the whole backlog, and a large event arriving in many
//     reads is rescanned from its start on every read (quadratic: seconds
//     for 16 MiB).
//
// The guard reads ahead and hands the library one whole frame at a time, so
// each search covers one frame, and it closes a cut frame under a name the
// feed drops.
type guardTransport struct {
	base  http.RoundTripper
	limit int // largest frame held back; past it, bytes flow (the library reports it too long)
}

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusOK {
		resp.Body = newFrameGuard(resp.Body, t.limit)
	}
	return resp, err
}

const (
	guardChunk  = 64 << 10 // read size from the connection
	guardShrink = 1 << 20  // a buffer grown past this is dropped once empty
)

// frameGuard is a response body handed out a frame at a time.
type frameGuard struct {
	body  io.ReadCloser
	limit int
	buf   []byte // read from the body; buf[off:] not yet handed out
	off   int
	scan  int // where the search for the next frame end resumes
	end   int // end of a complete frame found in buf, or 0
	err   error
	empty int // reads in a row that returned nothing

	// the last bytes handed out, to tell whether a frame is left open
	tail    [4]byte
	n       int
	started bool
	closed  bool // the closing line was added
}

func newFrameGuard(body io.ReadCloser, limit int) *frameGuard {
	if limit <= 0 {
		limit = defaultMaxEventBytes + frameSlack
	}
	return &frameGuard{body: body, limit: limit}
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	end := g.frameEnd()
	for end < 0 && g.err == nil && len(g.buf)-g.off < g.limit {
		g.fill()
		end = g.frameEnd()
	}
	if end < 0 {
		end = len(g.buf) // an open frame: the body ended, or it is too large to hold back
	}
	if end == g.off {
		if g.err != nil && g.started && !g.closed && !g.frameClosed() {
			g.closed = true
			g.buf = append(g.buf[:0], g.closing()...)
			g.off, g.scan, g.end = 0, 0, 0
			return g.Read(p)
		}
		return 0, g.err
	}
	n := copy(p, g.buf[g.off:end])
	g.remember(g.buf[g.off : g.off+n])
	g.started = true
	g.off += n
	return n, nil
}

func (g *frameGuard) Close() error { return g.body.Close() }

// fill reads once more from the body.
func (g *frameGuard) fill() {
	switch {
	case g.off == len(g.buf):
		if cap(g.buf) > guardShrink {
			g.buf = nil
		}
		g.buf, g.off, g.scan, g.end = g.buf[:0], 0, 0, 0
	case g.off > 0 && cap(g.buf)-len(g.buf) < guardChunk/4:
		k := copy(g.buf, g.buf[g.off:])
		g.buf = g.buf[:k]
		g.scan, g.end = max(g.scan-g.off, 0), max(g.end-g.off, 0)
		g.off = 0
	}
	if cap(g.buf)-len(g.buf) < guardChunk/4 {
		nb := make([]byte, len(g.buf), max(2*cap(g.buf), len(g.buf)+guardChunk))
		copy(nb, g.buf)
		g.buf = nb
	}
	free := g.buf[len(g.buf):cap(g.buf)]
	if len(free) > guardChunk && len(g.buf)-g.off < guardChunk {
		free = free[:guardChunk] // between frames, read in modest steps
	}
	n, err := g.body.Read(free)
	g.buf = g.buf[:len(g.buf)+n]
	if err != nil {
		g.err = err
	}
	if n == 0 && err == nil {
		if g.empty++; g.empty >= 100 {
			g.err = io.ErrNoProgress // a body that returns nothing, forever
		}
	} else {
		g.empty = 0
	}
}

// frameEnd returns the end of the first whole frame not yet handed out, or
// -1. Bytes already searched are not searched again.
func (g *frameGuard) frameEnd() int {
	if g.end > g.off {
		return g.end
	}
	from := max(g.scan, g.off)
	end, resume := findFrameEnd(g.buf, from)
	g.scan = resume
	if end < 0 {
		return -1
	}
	g.end = end
	return end
}

// findFrameEnd finds the first blank line (the end of a frame) in b from
// index from, in every line-ending combination r3labs/sse splits on. It
// returns its end, or -1 and the index to resume from once more bytes came.
func findFrameEnd(b []byte, from int) (end, resume int) {
	for i := from; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		r := b[i:]
		switch {
		case len(r) >= 2 && r[1] == c: // \n\n or \r\r
			return i + 2, i + 2
		case len(r) >= 3 && c == '\n' && r[1] == '\r' && r[2] == '\n':
			return i + 3, i + 3
		case len(r) >= 3 && c == '\r' && r[1] == '\n' && r[2] == '\n':
			return i + 3, i + 3
		case len(r) >= 4 && c == '\r' && r[1] == '\n' && r[2] == '\r' && r[3] == '\n':
			return i + 4, i + 4
		case len(r) < 4:
			return -1, i // may end a frame once more bytes come
		}
	}
	return -1, len(b)
}

func (g *frameGuard) remember(b []byte) {
	if len(b) >= len(g.tail) {
		copy(g.tail[:], b[len(b)-len(g.tail):])
		g.n = len(g.tail)
		return
	}
	keep := min(g.n, len(g.tail)-len(b))
	copy(g.tail[:], g.tail[g.n-keep:g.n])
	copy(g.tail[keep:], b)
	g.n = keep + len(b)
}

// frameClosed says whether the bytes handed out end with a blank line (in
// any of the line-ending combinations SSE allows), so no frame is open.
func (g *frameGuard) frameClosed() bool {
	t := string(g.tail[:g.n])
	for _, end := range []string{"\n\n", "\r\r", "\r\n\r\n", "\n\r\n", "\r\n\n", "\r\n\r"} {
		if len(t) >= len(end) && t[len(t)-len(end):] == end {
			return true
		}
	}
	return false
}

// closing ends the open frame under truncatedEvent: a line break first
// unless the frame's last line already ended.
func (g *frameGuard) closing() []byte {
	line := "event: " + truncatedEvent + "\n\n"
	if g.n > 0 && g.tail[g.n-1] == '\n' {
		return []byte(line)
	}
	return []byte("\n" + line)
}
