package tap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"toolscope/decoder"
	"toolscope/model"
)

// isEventStream says whether a Content-Type is text/event-stream, as
// mime.ParseMediaType reads it. It runs several times per exchange, so a
// plain ASCII type is compared in place: ParseMediaType makes a map and a
// lowered copy every time.
func isEventStream(contentType string) bool {
	const eventStream = "text/event-stream"
	base, _, hasParams := strings.Cut(contentType, ";")
	if isASCII(base) {
		if !strings.EqualFold(strings.TrimSpace(base), eventStream) {
			return false
		}
		if !hasParams {
			return true
		}
	}
	mt, _, _ := mime.ParseMediaType(contentType) // parameters, which may be invalid
	return mt == eventStream
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// readResponse parses the copy of the response body as it arrives, then
// records how the body ended. It runs on the exchange's goroutine: the
// client's bytes never wait for it.
func (ex *exchange) readResponse(rs *responseStart) {
	if rs.pipe == nil {
		return
	}
	defer func() { ex.end = rs.pipe.wait() }()
	if rs.tooLarge {
		ex.parseSkipped = true
		ex.warn(model.WarnParseSkipped, "response body of "+strconv.FormatInt(rs.contentLength, 10)+" bytes is over the parse limit: forwarded unchanged, not parsed")
		return
	}
	var r io.Reader = rs.pipe
	switch enc := strings.ToLower(strings.TrimSpace(rs.contentEncoding)); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(rs.pipe)
		if err != nil {
			ex.skipParse(rs, "gzip body unreadable: "+err.Error())
			return
		}
		r = zr
	default:
		ex.skipParse(rs, "content-encoding "+enc+" is not parsed")
		return
	}
	if isEventStream(rs.contentType) {
		ex.readEventStream(rs, r)
	} else {
		ex.readBody(rs, r)
	}
}

// skipParse gives up parsing this body; the bytes still flow.
func (ex *exchange) skipParse(rs *responseStart, why string) {
	if !ex.parseSkipped {
		ex.warn(model.WarnParseSkipped, why+" (forwarded unchanged)")
	}
	ex.parseSkipped = true
	rs.pipe.stop()
}

// sideYield is how long the stream parser lets others run once the client
// has the latest bytes.
const sideYield = 500 * time.Microsecond

// readEventStream dispatches each SSE event's messages as they arrive.
func (ex *exchange) readEventStream(rs *responseStart, r io.Reader) {
	p := decoder.NewSSEParser(ex.t.cfg.MaxParseBytes, func(e decoder.SSEEvent) {
		ex.capture.event(rs.pipe.arrival(), e)
		if e.Oversized {
			ex.warn(model.WarnParseSkipped, "an SSE event over the parse limit was forwarded unchanged, not parsed")
			return
		}
		ex.dispatch(rs.pipe.arrival(), e.Data, rs.status)
	})
	// The proxy's pooled copy buffers serve here too: a stream per call
	// otherwise allocates (and zeroes) 32 KiB. The parser copies what it keeps.
	buf := copyBuffers.Get()
	defer copyBuffers.Put(buf)
	lagged := false
	for {
		// The pipe wakes this reader sideYield after the client has the
		// bytes (signalSoon): it has stepped aside already.
		n, err := r.Read(buf)
		p.Feed(buf[:n])
		switch {
		case err == nil:
		case errors.Is(err, errGap) && r == io.Reader(rs.pipe):
			ex.capture.gap("the side parser fell behind")
			if !lagged {
				lagged = true
				ex.warn(model.WarnParseLagging, "the side parser fell behind; some stream bytes were not parsed (all were forwarded; the stream's end is always parsed)")
			}
			p.Gap()
		case errors.Is(err, errGap):
			ex.skipParse(rs, "the side parser fell behind a compressed stream")
			return
		default:
			return
		}
	}
}

// readBody collects a JSON body up to the parse limit, then parses it.
func (ex *exchange) readBody(rs *responseStart, r io.Reader) {
	size := rs.contentLength
	if rs.contentEncoding != "" {
		size = -1 // the length is the compressed one
	}
	body, err := readUpTo(r, size, ex.t.cfg.MaxParseBytes)
	switch {
	case errors.Is(err, errGap):
		ex.skipParse(rs, "the side parser fell behind")
		return
	case err != nil:
		return // the body did not end well: conclude reports how
	case int64(len(body)) > ex.t.cfg.MaxParseBytes:
		ex.skipParse(rs, "response body over "+strconv.FormatInt(ex.t.cfg.MaxParseBytes, 10)+" bytes")
		return
	}
	if err := rs.pipe.wait(); err != io.EOF {
		return
	}
	ex.respBody = body
	if len(body) == 0 || rs.status >= 300 && !looksJSON(ex.respBody) {
		return
	}
	ex.dispatch(rs.pipe.arrival(), ex.respBody, rs.status)
}

func looksJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// dispatch reports the messages of one response body or SSE event.
func (ex *exchange) dispatch(at time.Time, data []byte, status int) {
	msgs, _, err := decoder.ParseMessages(data)
	if err != nil {
		if len(bytes.TrimSpace(data)) > 0 {
			ex.malformedResponse("not JSON-RPC: " + err.Error())
		}
		return
	}
	pr := ex.req
	ex.t.cancels.settle() // a cancellation that came first is applied first
	for _, m := range msgs {
		switch m.Kind {
		case decoder.KindResponse:
			key := decoder.IDKey(m.ID)
			if c := pr.callByID(key); c != nil {
				c.onResult(at, m, status)
			} else if p := pr.plainByID(key); p != nil {
				msg := m
				p.reply = &msg
			} else if c, _ := ex.t.calls.byIDIn(key, ex.scope); c != nil {
				c.onResult(at, m, status) // a result on a resumed (GET) stream
			} else {
				ex.t.emit(model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp.response", RequestID: string(m.ID),
					Data: marshalData(map[string]any{"exchange": ex.id, "matched": false})})
			}
		case decoder.KindNotification:
			if m.Method == decoder.MethodProgress {
				ex.progress(at, m)
				continue
			}
			ex.serverMessage(at, m)
		case decoder.KindRequest:
			ex.serverMessage(at, m)
		default:
			ex.malformedResponse("invalid JSON-RPC message: " + m.Problem)
		}
	}
}

// malformedResponse warns of a message the server sent that cannot be read,
// and keeps the first such reason for the calls the stream leaves unanswered.
func (ex *exchange) malformedResponse(why string) {
	ex.warn(model.WarnMalformedResponse, why)
	if ex.malformed == "" {
		ex.malformed = why
	}
}

func (ex *exchange) progress(at time.Time, m decoder.Message) {
	p, err := decoder.ParseProgress(m.Params)
	if err != nil {
		ex.warn(model.WarnMalformedProgress, err.Error())
		return
	}
	key := decoder.IDKey(p.Token)
	c := ex.req.callByToken(key)
	if c == nil {
		c = ex.t.calls.byTokenIn(key, ex.scope)
	}
	if c == nil {
		ex.warn(model.WarnProgressUnmatched, "notifications/progress for token "+clipText(string(p.Token), 200)+" matches no call in flight")
		return
	}
	c.onProgress(at, p)
}

// serverMessage reports a server-to-client request or notification (logging,
// elicitation, list changes...), on the call's timeline when there is one.
func (ex *exchange) serverMessage(at time.Time, m decoder.Message) {
	ev := model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp." + m.Method, RequestID: string(m.ID),
		Data: marshalData(map[string]any{"exchange": ex.id, "from": "server"})}
	if len(ex.req.calls) == 1 {
		c := ex.req.calls[0]
		ev.TaskID, ev.ToolCallID, ev.Tool = c.taskID, c.toolCallID, c.tool
	}
	ex.t.emit(ev)
}

// clipText cuts s to at most max bytes, on a character boundary.
func clipText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
