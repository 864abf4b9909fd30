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

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

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

// DefaultMaxBufferedBytes is a tap's request-body budget.
const DefaultMaxBufferedBytes = 64 << 20

// requestReadTimeout bounds the wait for a body held for parsing (a
// variable for tests).
var requestReadTimeout = 30 * time.Second

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

// bufferRequest reads a request body before it is forwarded (--enforce),
// up to MaxParseBytes, within the budget and the read deadline. Past the
// budget the request is refused with a 503, past the deadline with a 408.
func (t *Tap) bufferRequest(w http.ResponseWriter, ex *exchange, r *http.Request) (body []byte, whole bool, refused *refusal) {
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
		return &refusal{answer: answer{status: status, code: jsonrpc.CodeInternalError, reason: reason,
			body: jsonrpc.ErrorResponse(nil, jsonrpc.CodeInternalError, "toolscope tap: "+reason)}, warning: code}
	}
	switch {
	case errors.Is(err, errBudget):
		return nil, false, refuse(http.StatusServiceUnavailable, model.WarnRequestBufferFull, "the tap's request buffer ("+strconv.FormatInt(t.budget.limit, 10)+" bytes, --max-buffered-bytes) is full: request not read, retry later")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, false, refuse(http.StatusRequestTimeout, model.WarnRequestBodyTimeout, "request body not received within "+requestReadTimeout.String())
	}
	rc.SetReadDeadline(time.Time{}) // the rest of the body streams on to the upstream
	return body, err == nil && int64(len(body)) <= t.cfg.MaxParseBytes, nil
}

// refusal is the answer to a request --enforce could not read, and the
// warning code saying why.
type refusal struct {
	answer
	warning model.WarningCode
}
