package tap

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// The request body, read once: the second step of a request's way through
// the tap (ServeHTTP). Without --enforce it is forwarded as it arrives and a
// copy is kept aside for the side work (forwardedBody); with --enforce it is
// read first, to be judged before it is forwarded (bufferRequest).
//
// Request bodies are read under two bounds, so that slow or large uploads
// cannot pile up in memory (the issue: 100 uploads held one byte short took
// a gigabyte, and the upstream had none of them):
//   - a byte budget per tap (Config.MaxBufferedBytes): every byte of a
//     request body the tap holds, buffered or copied aside, is counted;
//   - a read deadline (requestReadTimeout): a body held for parsing must
//     arrive within it.
// Without --enforce a request is forwarded as it arrives and a copy is kept
// aside for the parser (a requestTee); past a bound the copy is dropped (a
// parse_skipped warning), never the request. With --enforce the body must be
// read before the tap decides: past the budget the request is refused
// (503), past the deadline too (408).
//
// A tools/call arrives with its body in the same packet as its head. Such a
// body is read at once and forwarded from memory: net/http's transport then
// writes head and body to the upstream in one write, where a body it cannot
// see as in memory (the tee) makes it flush the head on its own first, a
// second write and a second packet per call. A body that is not all there
// after one read streams on through the tee, what was read first, so the
// tap never waits for a client's body.

// DefaultMaxBufferedBytes is a tap's request-body budget.
const DefaultMaxBufferedBytes = 64 << 20

// requestReadTimeout bounds the wait for a body held for parsing (a
// variable for tests).
var requestReadTimeout = 30 * time.Second

// forwardedBody is the request body the proxy forwards when the tap does not
// read it first (no --enforce): from memory when it had all arrived, else the
// tee over what was read and the rest. A cancellation the tee sees is
// counted as its bytes pass, so before the server can react.
func (t *Tap) forwardedBody(ex *exchange, r *http.Request) io.ReadCloser {
	body, whole, err := t.takeArrivedBody(ex, r)
	if whole {
		ex.body, ex.bodyWhole = body, true
		return io.NopCloser(bytes.NewReader(body))
	}
	var rest io.Reader = r.Body
	switch {
	case err != nil:
		rest = io.MultiReader(bytes.NewReader(body), failedReader{err})
	case len(body) > 0:
		rest = io.MultiReader(bytes.NewReader(body), r.Body)
	}
	ex.tee = newRequestTee(io.NopCloser(rest), r.ContentLength, t.cfg.MaxParseBytes, t.budget)
	ex.tee.onCancel = func() {
		ex.pendingCancel = true
		t.cancels.add()
	}
	return ex.tee
}

// takeArrivedBody reads r's body with one Read when its length is known
// and small: the first Read may wait for the body's first bytes (as the
// transport's would), a second could wait on a slow client. whole says the
// body is all there (then body is it, held under the budget as ex.held);
// otherwise body is what was read, to be forwarded first, and err the
// read's error, if any.
func (t *Tap) takeArrivedBody(ex *exchange, r *http.Request) (body []byte, whole bool, err error) {
	n := r.ContentLength
	if n <= 0 || n > arrivedBodyMax || n > t.cfg.MaxParseBytes || !t.budget.reserve(n) {
		return nil, false, nil
	}
	buf := make([]byte, n)
	got, err := r.Body.Read(buf)
	if got == len(buf) {
		ex.held = n // net/http says EOF with a known length's last bytes, or on the next Read
		return buf, true, nil
	}
	t.budget.release(n)
	return buf[:got], false, err
}

// arrivedBodyMax bounds the body read at once; larger ones stream.
const arrivedBodyMax = 64 << 10

// failedReader repeats the error the body's first Read met.
type failedReader struct{ err error }

func (f failedReader) Read([]byte) (int, error) { return 0, f.err }

// bufferRequest reads a request body before it is forwarded (--enforce),
// up to MaxParseBytes, within the budget and the read deadline, into
// ex.body, and returns the body the proxy forwards. Past the budget it
// answers the request itself with a 503, past the deadline with a 408, and
// returns that refusal.
func (t *Tap) bufferRequest(w http.ResponseWriter, ex *exchange, r *http.Request) (forwarded io.ReadCloser, refused *refusal) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(requestReadTimeout)) // not every connection has one: then the budget alone bounds
	br := &budgetReader{r: r.Body, budget: t.budget}
	body, err := readUpTo(br, r.ContentLength, t.cfg.MaxParseBytes)
	ex.held = br.reserved
	refuse := func(status int, code model.WarningCode, reason string) *refusal {
		t.budget.release(ex.held)
		ex.held = 0
		// The rest of the body is not read: net/http would read it before
		// the answer, unless the deadline has passed; the connection closes.
		rc.SetReadDeadline(time.Now())
		w.Header().Set("Connection", "close")
		a := decoder.Answer{Status: status, Code: jsonrpc.CodeInternalError, Reason: reason,
			Body: jsonrpc.ErrorResponse(nil, jsonrpc.CodeInternalError, "toolscope tap: "+reason)}
		jsonrpc.WriteResponse(w, a.Status, a.Body)
		return &refusal{Answer: a, warning: code}
	}
	switch {
	case errors.Is(err, errBudget):
		return nil, refuse(http.StatusServiceUnavailable, model.WarnRequestBufferFull, "the tap's request buffer ("+strconv.FormatInt(t.budget.limit, 10)+" bytes, --max-buffered-bytes) is full: request not read, retry later")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, refuse(http.StatusRequestTimeout, model.WarnRequestBodyTimeout, "request body not received within "+requestReadTimeout.String())
	}
	rc.SetReadDeadline(time.Time{}) // the rest of the body streams on to the upstream
	ex.body, ex.bodyWhole = body, err == nil && int64(len(body)) <= t.cfg.MaxParseBytes
	if ex.bodyWhole {
		// In memory as net/http sees it: head and body in one write.
		return io.NopCloser(bytes.NewReader(body)), nil
	}
	// Over the limit (or broken): what was read goes first, the rest
	// streams on; the upstream sees the same bytes either way.
	return replayBody{Reader: io.MultiReader(bytes.NewReader(body), r.Body), orig: r.Body}, nil
}

// refusal is the answer given to a request --enforce could not read, and
// the warning code saying why.
type refusal struct {
	decoder.Answer
	warning model.WarningCode
}

// replayBody forwards the bytes already read, then the rest; Close closes the
// client's body.
type replayBody struct {
	io.Reader
	orig io.ReadCloser
}

func (b replayBody) Close() error { return b.orig.Close() }

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

// maxPresize bounds the buffer sized from a declared length before the
// bytes arrive: a peer declaring megabytes and sending none holds no more.
const maxPresize = 64 << 10

// byteBudget counts bytes held against a limit.
type byteBudget struct {
	limit int64
	used  atomic.Int64
}

// reserve takes n bytes of the budget, or nothing and false.
func (b *byteBudget) reserve(n int64) bool {
	for {
		used := b.used.Load()
		if used+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

func (b *byteBudget) release(n int64) { b.used.Add(-n) }

// errBudget: the tap's request-body budget is spent.
var errBudget = errors.New("request body budget exhausted")

// budgetReader counts what it reads against a budget; reserved is released
// by the reader's owner once the bytes are no longer held.
type budgetReader struct {
	r        io.Reader
	budget   *byteBudget
	reserved int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	p = p[:min(len(p), 64<<10)] // reserve in small steps: a big buffer must not fail a small body
	// Reserve before reading: the bytes are held as soon as they are read.
	if !b.budget.reserve(int64(len(p))) {
		return 0, errBudget
	}
	n, err := b.r.Read(p)
	b.budget.release(int64(len(p) - n))
	b.reserved += int64(n)
	return n, err
}

// requestTee forwards a request body as the transport reads it and keeps a
// copy, up to limit bytes and within the budget, for the parser. done is
// closed once the copy is whole, or known not to be.
type requestTee struct {
	rc     io.ReadCloser
	limit  int64
	budget *byteBudget

	mu       sync.Mutex
	buf      []byte
	reserved int64
	whole    bool
	ended    bool
	skip     string // why the copy is not whole (for the parse_skipped warning)
	timer    *time.Timer
	deadline time.Time
	done     chan struct{}

	// onCancel, when set, is called (under mu, before the bytes are
	// forwarded) the first time a small copy holds a notifications/cancelled.
	onCancel   func()
	cancelSeen bool
}

func newRequestTee(rc io.ReadCloser, size, limit int64, budget *byteBudget) *requestTee {
	tee := &requestTee{rc: rc, limit: limit, budget: budget, done: make(chan struct{})}
	tee.deadline = time.Now().Add(requestReadTimeout)
	if size > limit {
		tee.end(false, "request body over "+strconv.FormatInt(limit, 10)+" bytes")
		return tee
	}
	wait := requestReadTimeout
	tee.mu.Lock()
	tee.timer = time.AfterFunc(wait, func() {
		tee.end(false, "request body not received within "+wait.String())
	})
	tee.mu.Unlock()
	return tee
}

func (tee *requestTee) Read(p []byte) (int, error) {
	n, err := tee.rc.Read(p)
	if n > 0 {
		tee.keep(p[:n])
	}
	switch {
	case err == io.EOF:
		tee.end(true, "")
	case err != nil:
		tee.end(false, "request body unreadable ("+err.Error()+")")
	}
	return n, err
}

// Close is the transport saying it is done with the body. The client's
// body is left open: the server closes it once the handler returns, and
// until then proxyError may still read it for the request id (drain).
func (tee *requestTee) Close() error { return nil }

// drain reads what the transport left of the body into the copy (an
// upstream that could not be reached read none of it), until the copy is
// whole or ends, within the copy's read deadline.
func (tee *requestTee) drain(w *http.ResponseController) {
	tee.mu.Lock()
	ended := tee.ended
	tee.mu.Unlock()
	if ended {
		return
	}
	w.SetReadDeadline(tee.deadline)
	defer w.SetReadDeadline(time.Time{})
	buf := make([]byte, 32<<10)
	for {
		if _, err := tee.Read(buf); err != nil {
			return
		}
		tee.mu.Lock()
		ended := tee.ended
		tee.mu.Unlock()
		if ended {
			return
		}
	}
}

// keep adds b to the copy, growing it under the budget.
func (tee *requestTee) keep(b []byte) {
	tee.mu.Lock()
	defer tee.mu.Unlock()
	if tee.ended {
		return
	}
	need := int64(len(tee.buf) + len(b))
	if need > tee.limit {
		tee.endLocked(false, "request body over "+strconv.FormatInt(tee.limit, 10)+" bytes")
		return
	}
	if need > int64(cap(tee.buf)) {
		grown := min(max(2*int64(cap(tee.buf)), need, 4<<10), tee.limit)
		if !tee.budget.reserve(grown - int64(cap(tee.buf))) {
			tee.endLocked(false, "the tap's request buffer ("+strconv.FormatInt(tee.budget.limit, 10)+" bytes, --max-buffered-bytes) is full")
			return
		}
		tee.reserved += grown - int64(cap(tee.buf))
		tee.buf = append(make([]byte, 0, grown), tee.buf...)
	}
	from := max(0, len(tee.buf)-len(cancelMethod)+1) // only what this chunk could complete
	tee.buf = append(tee.buf, b...)
	if tee.onCancel != nil && !tee.cancelSeen && len(tee.buf) <= maxCancelBody && bytes.Contains(tee.buf[from:], cancelMethod) {
		tee.cancelSeen = true
		tee.onCancel()
	}
}

// cancelMethod is what marks a body as (possibly) holding a cancellation.
var cancelMethod = []byte("notifications/cancelled")

func (tee *requestTee) end(whole bool, skip string) {
	tee.mu.Lock()
	defer tee.mu.Unlock()
	tee.endLocked(whole, skip)
}

func (tee *requestTee) endLocked(whole bool, skip string) {
	if tee.ended {
		return
	}
	tee.ended, tee.whole, tee.skip = true, whole, skip
	if tee.timer != nil {
		tee.timer.Stop()
	}
	if !whole {
		tee.releaseLocked() // a partial copy is never parsed
	}
	close(tee.done)
}

// result waits for the copy: the body when whole, or why it is not.
func (tee *requestTee) result() (body []byte, whole bool, skip string) {
	<-tee.done
	tee.mu.Lock()
	defer tee.mu.Unlock()
	return tee.buf, tee.whole, tee.skip
}

// release gives the copy's bytes back to the budget once parsed.
func (tee *requestTee) release() {
	tee.mu.Lock()
	defer tee.mu.Unlock()
	tee.releaseLocked()
}

func (tee *requestTee) releaseLocked() {
	tee.budget.release(tee.reserved)
	tee.reserved = 0
	if !tee.whole {
		tee.buf = nil
	}
}
