package tap

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"toolscope/decoder/soat"
)

// net/http canonicalises header names (X-Soat-Context-tenantExternalId
// becomes X-Soat-Context-Tenantexternalid), but SOAT keys are the header
// name verbatim and case-sensitive. So the tap's listener hands the server
// connections that watch the bytes they pass on: they follow HTTP/1.1
// framing (head, then a Content-Length or chunked body) and keep each
// request head's field names as they arrived. The bytes themselves are
// untouched. The handler takes the head of its request and checks it is
// that request's; anything unexpected falls back to Go's names.

// Bounds of what a connection keeps.
const (
	maxRawHead  = 1<<20 + 4096 // net/http's DefaultMaxHeaderBytes and its slack
	maxRawLine  = 4096         // a chunk-size or trailer line
	maxRawHeads = 8            // heads read ahead of their handlers (pipelining)
)

// rawField is one header field as it arrived.
type rawField struct{ name, value string }

// rawHead is the head of one request: its request line, how many fields it
// had (Host and Transfer-Encoding left out, as net/http does) and, of
// those, the ones whose names may be SOAT keys. Only a tools/call with
// such fields reads them (soatFields): the rest of the head is not kept.
type rawHead struct {
	method, target string
	count          int
	fields         []rawField
}

// headListener wraps the tap's listener so its connections record heads.
type headListener struct{ net.Listener }

func (l headListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &headConn{Conn: c}, nil
}

type headConnKey struct{}

// withHeadConn is the server's ConnContext hook. The connection keeps the
// fields under the SOAT prefix of the tap it serves; when that tap is not
// known, the connection is left out and its names stay unknown.
func withHeadConn(ctx context.Context, c net.Conn) context.Context {
	hc, ok := c.(*headConn)
	if !ok {
		return ctx
	}
	srv, _ := ctx.Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return ctx
	}
	t, _ := srv.Handler.(*Tap)
	if t == nil {
		return ctx
	}
	hc.prefix = t.cfg.SoatPrefix
	return context.WithValue(ctx, headConnKey{}, hc)
}

// rawHeader is a request's SOAT-prefixed header fields as they arrived.
type rawHeader struct {
	fields []rawField
}

// noRawFields is the raw header of every request without SOAT fields:
// nothing is made for it.
var noRawFields = &rawHeader{}

// rawHeaderOf returns r's raw header, or nil when the names are not known.
func rawHeaderOf(r *http.Request) *rawHeader {
	hc, _ := r.Context().Value(headConnKey{}).(*headConn)
	if hc == nil || r.ProtoMajor != 1 {
		return nil
	}
	head, ok := hc.pop()
	for ok && (head.method != r.Method || head.target != r.RequestURI) {
		// A request net/http answered itself (OPTIONS *) left its head.
		head, ok = hc.pop()
	}
	if !ok {
		hc.reset() // lost step with net/http: this connection's names stay unknown
		return nil
	}
	want := 0
	for k, vs := range r.Header {
		if k != "Transfer-Encoding" {
			want += len(vs)
		}
	}
	if head.count != want {
		return nil // a head net/http read otherwise (folded lines...)
	}
	if len(head.fields) == 0 {
		return noRawFields
	}
	return &rawHeader{fields: head.fields}
}

// mayBeSoat reports whether a field name may start with prefix without
// case: the judge decides. Names are tokens, so ASCII folding is exact;
// any other byte is kept for the judge to judge.
func mayBeSoat(name []byte, prefix string) bool {
	if len(name) <= len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := name[i], prefix[i]
		if a >= utf8.RuneSelf || b >= utf8.RuneSelf {
			return true
		}
		if lowerASCII(a) != lowerASCII(b) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// framing states of a connection.
type rawState int

const (
	rawHeadState rawState = iota // reading a request head
	rawBody                      // skipping remain bytes of body
	rawChunkSize                 // reading a chunk-size line
	rawChunkData                 // skipping remain bytes of chunk data, then its CRLF
	rawChunkEnd                  // reading the CRLF line after chunk data
	rawTrailer                   // reading trailer lines up to an empty one
	rawOff                       // lost or done (an upgrade): record nothing more
)

// headConn is a connection that records the request heads it reads.
type headConn struct {
	net.Conn
	mu     sync.Mutex
	state  rawState
	buf    []byte // the head or line being read
	remain int64
	heads  []rawHead
	prefix string // the tap's SOAT prefix ("" for the default)
	// lastTarget is the last head's target.
	lastTarget string
}

func (c *headConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.feed(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

func (c *headConn) pop() (rawHead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.heads) == 0 {
		return rawHead{}, false
	}
	h := c.heads[0]
	if len(c.heads) == 1 {
		// The usual case, one head at a time: its array serves the next.
		c.heads[0] = rawHead{}
		c.heads = c.heads[:0]
	} else {
		c.heads = c.heads[1:]
	}
	return h, true
}

func (c *headConn) reset() {
	c.mu.Lock()
	c.state, c.heads, c.buf = rawOff, nil, nil
	c.mu.Unlock()
}

// feed advances the framing over b.
func (c *headConn) feed(b []byte) {
	for len(b) > 0 {
		switch c.state {
		case rawOff:
			return
		case rawBody, rawChunkData:
			k := int64(len(b))
			if k > c.remain {
				k = c.remain
			}
			c.remain -= k
			b = b[k:]
			if c.remain == 0 {
				if c.state == rawBody {
					c.state = rawHeadState
				} else {
					c.state = rawChunkEnd
				}
			}
		case rawHeadState:
			b = c.feedHead(b)
		default:
			b = c.feedLine(b)
		}
		if len(b) > maxRawHead {
			c.state = rawOff // cannot happen; never loop on it
		}
	}
}

// feedHead gathers a head up to its empty line and parses it.
func (c *headConn) feedHead(b []byte) []byte {
	if len(c.buf) == 0 {
		// Empty lines before a request line are skipped, as servers may.
		for len(b) > 0 && (b[0] == '\r' || b[0] == '\n') {
			b = b[1:]
		}
		if len(b) == 0 {
			return nil
		}
	}
	if len(c.buf) == 0 {
		if end := headEnd(b, 0); end >= 0 { // the whole head in one read: no copy
			c.parseHead(b[:end])
			return b[end:]
		}
	}
	start := len(c.buf)
	c.buf = append(c.buf, b...)
	// Look for the end from a little before the new bytes.
	from := max(start-3, 0)
	end := headEnd(c.buf, from)
	if end < 0 {
		if len(c.buf) > maxRawHead {
			c.state = rawOff
		}
		return nil
	}
	rest := c.buf[end:]
	head := c.buf[:end]
	c.buf = nil
	c.parseHead(head)
	return rest // c.buf's array is no longer used
}

func (c *headConn) soatPrefix() string {
	if c.prefix == "" {
		return soat.DefaultPrefix
	}
	return c.prefix
}

// feedLine gathers a chunk-size, chunk-end or trailer line.
func (c *headConn) feedLine(b []byte) []byte {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		c.buf = append(c.buf, b...)
		if len(c.buf) > maxRawLine {
			c.state = rawOff
		}
		return nil
	}
	line := strings.TrimSuffix(string(append(c.buf, b[:i]...)), "\r")
	c.buf = nil
	rest := b[i+1:]
	switch c.state {
	case rawChunkSize:
		sizeText, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		switch {
		case err != nil || size < 0:
			c.state = rawOff
		case size == 0:
			c.state = rawTrailer
		default:
			c.state, c.remain = rawChunkData, size
		}
	case rawChunkEnd:
		c.state = rawChunkSize
	case rawTrailer:
		if line == "" {
			c.state = rawHeadState
		}
	}
	return rest
}
