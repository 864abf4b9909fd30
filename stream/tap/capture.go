package tap

import (
	"io"
	"net/http"
	"sort"
	"time"

	"toolscope/decoder/sse"
	"toolscope/model"
)

// wireCapture keeps what one HTTP exchange sent and received, for a
// recording (Config.RecordBodyLimit > 0): the request as the client sent
// it, the response head, and the body or each SSE event with its time. It
// is filled from bytes the side parser already holds, on the exchange's
// own goroutine (the head in ModifyResponse, before the outcome is handed
// over), and emitted as one wire event when the exchange is concluded: the
// traffic never waits on it. Its hooks, one line each: newExchange (the
// request head), modifyResponse (the response head), readEventStream (each
// event, and a gap), run (the emit, with the request body and the
// response body the parser read).
type wireCapture struct {
	limit int64
	start time.Time
	req   model.WireRequest
	resp  model.WireResponse
	// The heads are kept as they are and written out on the exchange's
	// goroutine: the request path only takes references.
	reqHeader, respHeader http.Header
	head                  bool  // a response head came
	kept                  int64 // event bytes kept so far
	partial               string
}

// newWireCapture starts the capture of r, or is nil when nothing is recorded.
func (t *Tap) newWireCapture(r *http.Request, start time.Time) *wireCapture {
	if t.cfg.RecordBodyLimit <= 0 {
		return nil
	}
	return &wireCapture{limit: t.cfg.RecordBodyLimit, start: start, reqHeader: r.Header,
		req: model.WireRequest{Method: r.Method, Host: r.Host, URL: r.RequestURI, HTTPVersion: r.Proto}}
}

// headerPairs are h's fields in name order (values in the order sent).
func headerPairs(h http.Header) [][2]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var pairs [][2]string
	for _, k := range names {
		for _, v := range h[k] {
			pairs = append(pairs, [2]string{k, v})
		}
	}
	return pairs
}

func sinceMS(from, at time.Time) float64 {
	return float64(at.Sub(from).Microseconds()) / 1000
}

// responseHead records the upstream's answer head.
func (c *wireCapture) responseHead(res *http.Response) {
	if c == nil {
		return
	}
	c.head = true
	c.resp.Status, c.resp.HTTPVersion, c.respHeader = res.StatusCode, res.Proto, res.Header
	c.resp.HeadMS = sinceMS(c.start, time.Now())
}

// event records one SSE event of the response, within the body limit
// (past it the event is counted, not kept).
func (c *wireCapture) event(at time.Time, e sse.Event) {
	if c == nil {
		return
	}
	if e.Oversized || c.kept+int64(len(e.Data)) > c.limit {
		c.resp.EventsCut++
		c.resp.EventsCutBytes += int64(len(e.Data))
		return
	}
	c.kept += int64(len(e.Data))
	c.resp.Events = append(c.resp.Events, model.WireEvent{AtMS: sinceMS(c.start, at), ID: e.ID, Event: e.Event, Data: string(e.Data)})
}

// gap says the side parser skipped bytes of the stream: events are missing.
func (c *wireCapture) gap(why string) {
	if c != nil && c.partial == "" {
		c.partial = why
	}
}

// emit sends the exchange as one wire event once it is concluded.
func (ex *exchange) emitWire(o outcome) {
	c := ex.capture
	if c == nil {
		return
	}
	c.req.Headers = headerPairs(c.reqHeader)
	c.resp.Headers = headerPairs(c.respHeader)
	w := &model.Wire{Transport: model.TransportHTTP, Request: &c.req}
	if ex.tee != nil || ex.body != nil || ex.bodyWhole { // a request with a body
		c.req.Body = c.body(ex.body, ex.bodyWhole, ex.bodySkip)
	}
	resp := &c.resp
	partial := c.partial
	if partial == "" && ex.parseSkipped {
		partial = "not parsed (over --max-parse-bytes, compressed, or the side parser fell behind)"
	}
	switch {
	case c.head && o.resp != nil:
		resp.EndMS = resp.HeadMS
		if o.resp.pipe != nil {
			resp.EndMS = sinceMS(c.start, o.resp.pipe.endTime())
			if !o.resp.eventStream {
				resp.Body = c.body(ex.respBody, partial == "" && (ex.respBody != nil || ex.end == io.EOF), partial)
				if resp.Body != nil && resp.Body.Size == 0 && o.resp.contentLength > 0 {
					resp.Body.Size = o.resp.contentLength
				}
			} else if partial != "" {
				resp.Error = "events missing: " + partial
			}
		}
		if ex.end != nil && ex.end != io.EOF {
			resp.Error = ex.end.Error()
		}
	case o.kind == outcomeUnreachable || o.kind == outcomeEnforced:
		resp.Status, resp.HTTPVersion, resp.Error = o.status, c.req.HTTPVersion, o.message
		resp.HeadMS = sinceMS(c.start, o.at)
		resp.EndMS = resp.HeadMS
	default:
		resp.Error = ex.t.goneReason()
		resp.HeadMS = sinceMS(c.start, o.at)
		resp.EndMS = resp.HeadMS
	}
	w.Response = resp
	ex.t.emit(model.Event{Time: c.start.UTC(), Kind: model.KindWire, Exchange: ex.id, Wire: w})
}

// body is b as recorded: at most the limit, and said when it is not whole.
func (c *wireCapture) body(b []byte, whole bool, why string) *model.WireBody {
	if len(b) == 0 && whole {
		return nil
	}
	wb := model.NewWireBody(b, c.limit)
	if !whole {
		wb.Cut = true
		if why == "" {
			why = "not read whole"
		}
		wb.Why = why
	}
	return wb
}

// captureLine emits one stdio line as a wire event, when recorded (the
// stdio hook: onLine, where the parser has the line's bytes).
func (t *Tap) captureLine(dir direction, at time.Time, e lineEnd) {
	if t.cfg.RecordBodyLimit <= 0 {
		return
	}
	var msg *model.WireBody
	if e.line == nil {
		msg = &model.WireBody{Size: e.size, Cut: true, Why: "over --max-parse-bytes"}
	} else {
		msg = model.NewWireBody(e.line, t.cfg.RecordBodyLimit)
	}
	t.emit(model.Event{Time: at.UTC(), Kind: model.KindWire, Wire: &model.Wire{Transport: model.TransportStdio, From: dirName(dir), Message: msg}})
}
