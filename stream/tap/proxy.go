package tap

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"toolscope/decoder/jsonrpc"
)

// newTransport is http.DefaultTransport tuned for a proxy: compression is
// left to the client (the transport must not add Accept-Encoding nor unzip
// what the client asked zipped) and enough idle connections are kept for a
// busy agent.
func newTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	tr.MaxIdleConns = 512
	tr.MaxIdleConnsPerHost = 256
	tr.IdleConnTimeout = 90 * time.Second
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return tr
}

func (t *Tap) newProxy() *httputil.ReverseProxy {
	transport := t.cfg.Transport
	if transport == nil {
		transport = newTransport()
	}
	return &httputil.ReverseProxy{
		Rewrite:        t.rewrite,
		Transport:      transport,
		FlushInterval:  plainFlushInterval,
		ModifyResponse: t.modifyResponse,
		ErrorHandler:   t.proxyError,
		ErrorLog:       discardLog,
		BufferPool:     copyBuffers,
	}
}

// plainFlushInterval is how long a body of known length may sit in the
// response buffer while the upstream is slow to send the rest. An event
// stream, or a body of unknown length, is flushed at every write whatever
// this says (httputil.ReverseProxy). A known length is not flushed at every
// write: with -1 the proxy flushed the head on its own from a timer
// goroutine, then the body, two writes and a goroutine per answer; now a
// small answer leaves in one write when the handler returns.
const plainFlushInterval = 50 * time.Millisecond

// bufferPool recycles the proxy's 32 KiB copy buffers: one per response
// otherwise, zeroed and collected each time.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

var copyBuffers httputil.BufferPool = &bufferPool{}

// rewrite points the request at the upstream. The tap's root (and the
// upstream's own path) map to the upstream URL exactly; other paths are
// appended to it. Rewrite strips the client's forwarding headers: they are
// put back so the upstream sees what the client sent, and the tap adds none.
// Host stays the client's (so the upstream judges a DNS-rebinding Host, and
// an Origin against it, as it would directly) unless RewriteHost asks for
// the upstream's own name.
func (t *Tap) rewrite(pr *httputil.ProxyRequest) {
	up, in, out := t.upstream, pr.In.URL, pr.Out.URL
	out.Scheme, out.Host = up.Scheme, up.Host
	in = withoutDotSegments(in)
	switch {
	case in.Path == "" || in.Path == "/" || in.Path == up.Path:
		out.Path, out.RawPath = up.Path, up.RawPath
	default:
		out.Path = strings.TrimSuffix(up.Path, "/") + in.Path
		out.RawPath = ""
		if in.RawPath != "" {
			out.RawPath = strings.TrimSuffix(up.EscapedPath(), "/") + in.RawPath
		}
	}
	switch {
	case up.RawQuery == "":
		out.RawQuery = in.RawQuery
	case in.RawQuery == "":
		out.RawQuery = up.RawQuery
	default:
		out.RawQuery = up.RawQuery + "&" + in.RawQuery
	}
	if t.cfg.RewriteHost {
		pr.Out.Host = "" // the URL's host
	}
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok {
			pr.Out.Header[h] = v
		}
	}
}

// withoutDotSegments resolves "." and ".." segments of the request path
// (decoded, so %2e%2e and ..%2f count too) against the tap's root, so
// "/../../admin" is "/admin" and a request cannot leave the upstream's
// path. A path without such segments is returned as it came, byte for byte.
func withoutDotSegments(u *url.URL) *url.URL {
	if !hasDotSegment(u.Path) {
		return u
	}
	c := *u
	clean := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	c.Path, c.RawPath = clean, ""
	return &c
}

func hasDotSegment(p string) bool {
	for p != "" { // without a slice per request: this runs on every one
		var seg string
		seg, p, _ = strings.Cut(p, "/")
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// modifyResponse wraps the upstream body in a tee before the proxy copies it
// to the client. It only reads headers: it never delays the body.
func (t *Tap) modifyResponse(res *http.Response) error {
	ex := exchangeFrom(res.Request.Context())
	if ex == nil {
		return nil
	}
	rs := responseStart{
		status:          res.StatusCode,
		contentType:     res.Header.Get("Content-Type"),
		contentEncoding: res.Header.Get("Content-Encoding"),
		sessionID:       res.Header.Get("Mcp-Session-Id"),
		contentLength:   res.ContentLength,
	}
	rs.eventStream = isEventStream(rs.contentType)
	if res.Body != nil && res.Body != http.NoBody && res.StatusCode != http.StatusSwitchingProtocols {
		rs.pipe = newSidePipe(t.cfg.MaxParseBytes)
		if !rs.eventStream && res.ContentLength > t.cfg.MaxParseBytes {
			// Not worth copying a byte of it; the tee still sees how it ends.
			rs.tooLarge = true
			rs.pipe.stop()
		}
		res.Body = &teeBody{rc: res.Body, pipe: rs.pipe, client: ex.client, stream: rs.eventStream}
	}
	ex.capture.responseHead(res)
	ex.settle(outcome{kind: outcomeResponse, resp: &rs})
	if rs.eventStream {
		ex.streamStarted()
	}
	return nil
}

// proxyError answers when the upstream could not be reached (or the client
// left before it answered): a 502 whose body is a JSON-RPC error carrying
// the request id, as an MCP client expects.
func (t *Tap) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeFrom(r.Context())
	if ex == nil { // forwarded unobserved: the request id is not known
		jsonrpc.WriteResponse(w, http.StatusBadGateway, jsonrpc.ErrorResponse(nil, jsonrpc.CodeInternalError, "toolscope tap: upstream unreachable: "+redactErr(err)))
		return
	}
	if ex.client.Err() != nil || errors.Is(err, errClientGone) {
		w.WriteHeader(http.StatusBadGateway) // nobody reads it
		ex.settle(outcome{kind: outcomeClientGone})
		return
	}
	msg := "toolscope tap: upstream unreachable: " + redactErr(err)
	if ex.tee != nil {
		ex.tee.drain(http.NewResponseController(w)) // the request id is in the body
	}
	jsonrpc.WriteResponse(w, http.StatusBadGateway, jsonrpc.ErrorResponse(ex.firstRequestID(), jsonrpc.CodeInternalError, msg))
	ex.settle(outcome{kind: outcomeUnreachable, status: http.StatusBadGateway, rpcCode: jsonrpc.CodeInternalError, message: msg})
}

// discardLog silences the proxy's own logging: what goes wrong is reported
// as events.
var discardLog = log.New(io.Discard, "", 0)
