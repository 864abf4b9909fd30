package tap

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// outcomeKind says how the proxy finished with one exchange.
type outcomeKind int

const (
	outcomeResponse    outcomeKind = iota + 1 // upstream answered; the body streams through the tee
	outcomeUnreachable                        // the tap answered 502
	outcomeClientGone                         // the client left before the upstream answered
	outcomeEnforced                           // --enforce answered and did not forward
	outcomeAborted                            // the handler ended without any of the above
)

type outcome struct {
	at      time.Time // when the handler settled it
	kind    outcomeKind
	resp    *responseStart
	status  int
	rpcCode int
	message string
}

// responseStart is what ModifyResponse saw of the upstream response.
type responseStart struct {
	status          int
	contentType     string
	eventStream     bool // contentType is text/event-stream (isEventStream, read once)
	contentEncoding string
	sessionID       string
	contentLength   int64
	tooLarge        bool
	pipe            *sidePipe // nil without a body to parse
}

// exchange is one HTTP request through the tap. The handler settles its
// outcome; a goroutine of its own (a runner, see runners.go) parses the
// request and the response copy and emits every event, so parsing never runs on the request path (except
// with --enforce, which must decide before forwarding).
type exchange struct {
	t      *Tap
	id     string
	start  time.Time
	method string
	header http.Header
	// rawHeader is header with its names as they arrived (nil when unknown).
	rawHeader *rawHeader
	client    context.Context
	scope     scope

	body          []byte
	bodyWhole     bool
	bodySkip      string      // why a request body copy is not whole (tee)
	tee           *requestTee // the request body as forwarded, without --enforce
	held          int64       // request-body bytes held under the budget (--enforce)
	pendingCancel bool        // counted in t.cancels until announced
	req           *parsedRequest

	settled   atomic.Bool
	outcomes  chan outcome
	sideStart *time.Timer // starts run on a runner (see scheduleSideWork)
	served    bool        // the proxy returned (it panics when the client is gone)
	over      bool        // run starts with the exchange over (handlerDone)
	queuedAt  time.Time   // when it was queued for a worker (runners.queue)
	pipe      *sidePipe   // set by ModifyResponse, read by the handler's defer

	end          error  // how the response body ended
	respBody     []byte // a non-stream response body, when parsed
	parseSkipped bool   // the response was not (entirely) parsed; a warning said why
	malformed    string // why the first unreadable message of the response could not be read

	capture *wireCapture // what it sent and received, when recorded (capture.go); nil otherwise
	seq     uint64       // id as a number
	unread  bool         // counted in t.unread until run ends
}

// newExchange makes the exchange of request r, whose head arrived as raw.
func (t *Tap) newExchange(r *http.Request, raw *rawHeader) *exchange {
	start := time.Now()
	seq := t.seq.Add(1)
	ex := &exchange{
		t:         t,
		seq:       seq,
		id:        strconv.FormatUint(seq, 10),
		start:     start,
		capture:   t.newWireCapture(r, start),
		method:    r.Method,
		header:    r.Header,
		rawHeader: raw,
		client:    r.Context(),
		scope:     scope{session: r.Header.Get("Mcp-Session-Id"), conn: r.RemoteAddr},
		outcomes:  make(chan outcome, 1),
	}
	ex.unread = t.unread.begin(r, seq)
	return ex
}

// run is the exchange's work on its runner: request events, then the
// response.
func (ex *exchange) run() {
	defer ex.t.inflight.Done()
	if ex.unread {
		defer ex.t.unread.end(ex.seq)
	}
	defer ex.releaseBody()
	if ex.t.cfg.sideWorkStarts != nil {
		ex.t.cfg.sideWorkStarts(ex.seq)
	}
	if ex.tee != nil {
		ex.body, ex.bodyWhole, ex.bodySkip = ex.tee.result()
	}
	if ex.req == nil {
		ex.req = ex.t.parseRequest(ex)
	}
	ex.announce()
	o := <-ex.outcomes
	if o.kind == outcomeResponse {
		ex.readResponse(o.resp)
	}
	ex.conclude(o)
	ex.emitWire(o)
	if ex.over {
		for _, c := range ex.req.calls {
			c.startTimer() // a call the answer left open (same deadline); a no-op once ended
		}
	}
}

// firstRequestID is the id of the request to answer an error for (null when
// there is none or the body cannot be read). It parses the body itself: it
// runs on the handler's goroutine while the exchange's may be parsing too.
func (ex *exchange) firstRequestID() json.RawMessage {
	if ex.tee != nil {
		body, whole, _ := ex.tee.result()
		if !whole {
			return nil
		}
		return firstID(body)
	}
	if !ex.bodyWhole {
		return nil
	}
	return firstID(ex.body)
}

func firstID(body []byte) json.RawMessage {
	for _, m := range jsonrpc.Read(body).Messages {
		if m.Kind == jsonrpc.KindRequest {
			return m.ID
		}
	}
	return nil
}

// conclude ends the calls that are still open according to the outcome, and
// reports the exchange's other traffic.
func (ex *exchange) conclude(o outcome) {
	now := o.at // wire time, not the time the parser got here
	if o.resp != nil && o.resp.pipe != nil {
		now = o.resp.pipe.endTime()
	}
	status := o.status
	if o.resp != nil {
		status = o.resp.status
	}
	for _, c := range ex.req.calls {
		switch {
		case o.kind == outcomeResponse:
			ex.concludeCall(c, now, o.resp)
		case o.kind == outcomeUnreachable || o.kind == outcomeEnforced:
			c.onFailure(now, o.status, o.rpcCode, o.message)
		case o.kind == outcomeClientGone || ex.client.Err() != nil:
			c.onClientGone(now)
		default:
			c.onFailure(now, 0, 0, "the proxy ended the exchange without an answer")
		}
	}
	ex.reportPlain(now, status, o)
}

func (ex *exchange) concludeCall(c *call, now time.Time, rs *responseStart) {
	if ex.end == errClientGone {
		c.onClientGone(now)
		return
	}
	if ex.end != nil && ex.end != io.EOF {
		c.onFailure(now, rs.status, 0, ex.end.Error())
		return
	}
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	switch {
	case ended:
	case rs.status >= 300:
		c.onFailure(now, rs.status, 0, httpErrorText(rs.status, ex.respBody))
	case ex.parseSkipped:
		c.onFailure(now, rs.status, 0, "") // not parsed: status and time are what is known
	case !rs.eventStream:
		c.onFailure(now, rs.status, 0, "the response holds no answer to this call")
	case ex.malformed != "":
		// The server answered on this stream, but not in a form the tap can
		// read: the answer was likely this call's result, and no resumed
		// stream will bring another.
		c.onFailure(now, rs.status, 0, "the response stream ended without a readable result: "+ex.malformed)
	case c.scope.session == "":
		// No MCP session, no resumed stream (2026-07-28 has neither): the
		// result can come nowhere else, so the call is over.
		c.onFailure(now, rs.status, 0, closedWithoutResult)
	default:
		// An event stream that ended before the result: inside a session a
		// server may send it on a resumed stream, so the call stays open.
		c.mu.Lock()
		if !c.ended {
			c.warn(now, model.WarnStreamEndedWithoutResult, "the response stream closed before the result; the call stays open for a resumed stream")
		}
		c.mu.Unlock()
	}
}

// closedWithoutResult is the error of a session-less call whose response
// stream closed before its result.
const closedWithoutResult = "the server closed the stream without a result"

func (t *Tap) goneReason() string {
	if t.closing.Load() {
		return "tap shut down"
	}
	return "client disconnected"
}

// httpErrorText describes a failed HTTP answer from its body's first line.
func httpErrorText(status int, body []byte) string {
	text := "HTTP " + strconv.Itoa(status) + " " + http.StatusText(status)
	if len(body) > 0 {
		line := body
		if len(line) > 200 {
			line = line[:200]
		}
		text += ": " + string(trimLine(line))
	}
	return text
}

func trimLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return b[:i]
		}
	}
	return b
}

// warn emits a warning about the exchange that belongs to no call (it names
// the exchange in its message: an exchange field would make it a call).
func (ex *exchange) warn(code model.WarningCode, msg string) {
	ex.t.emit(model.Event{Kind: model.KindWarning, Code: string(code), Message: "exchange " + ex.id + ": " + msg})
}
