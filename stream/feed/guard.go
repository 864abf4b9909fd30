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
// Connection) to not deliver half an event: when a stream ends or breaks in
// the middle of a frame, the library's scanner hands the partial bytes over
// as if they were a whole event, which would surface as a malformed_event
// warning (or a wrong event) on every mid-event disconnect.
type guardTransport struct{ base http.RoundTripper }

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusOK {
		resp.Body = &frameGuard{body: resp.Body}
	}
	return resp, err
}

// frameGuard passes a response body through and remembers its last bytes.
// At the end of the body (EOF or an error) with a frame left open, it first
// hands out one more line, "event: toolscope.truncated-frame", and a blank
// line, closing that frame under a name the feed knows to drop.
type frameGuard struct {
	body    io.ReadCloser
	tail    [4]byte
	n       int // valid bytes in tail
	started bool
	pending []byte
	final   error
}

// maxGuardRead caps one read. r3labs/sse's splitter searches everything
// buffered for five blank-line patterns on every event, so a large buffered
// backlog of small events costs each event a scan of the whole backlog;
// bounded reads keep that scan short.
const maxGuardRead = 32 << 10

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.final != nil {
		if len(g.pending) == 0 {
			return 0, g.final
		}
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	if len(p) > maxGuardRead {
		p = p[:maxGuardRead]
	}
	n, err := g.body.Read(p)
	if n > 0 {
		g.started = true
		g.remember(p[:n])
	}
	if err != nil {
		g.final = err
		if g.started && !g.frameClosed() {
			g.pending = g.closing()
			return n, nil // the closing line comes next, then err
		}
	}
	return n, err
}

func (g *frameGuard) Close() error { return g.body.Close() }

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

// frameClosed says whether the bytes so far end with a blank line (in any
// of the line-ending combinations SSE allows), so no frame is left open.
func (g *frameGuard) frameClosed() bool {
	t := string(g.tail[:g.n])
	for _, end := range []string{"\n\n", "\r\r", "\r\n\r\n", "\n\r\n", "\r\n\n", "\r\n\r"} {
		if len(t) >= len(end) && t[len(t)-len(end):] == end {
			return true
		}
	}
	return false
}

// closing is what ends the open frame under truncatedEvent: a line break
// first unless the frame's last line already ended.
func (g *frameGuard) closing() []byte {
	line := "event: " + truncatedEvent + "\n\n"
	if g.n > 0 && g.tail[g.n-1] == '\n' {
		return []byte(line)
	}
	return []byte("\n" + line)
}
