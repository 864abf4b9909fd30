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

	"toolscope/decoder/sse"
	"toolscope/model"
)

// isEventStream says whether a Content-Type is text/event-stream.
func isEventStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType) // parameters, which may be invalid
	return mt == "text/event-stream"
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
	if rs.eventStream {
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
	p := sse.NewParser(ex.t.cfg.MaxParseBytes, func(e sse.Event) {
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

// dispatch reports the messages of one response body or SSE event (the
// one dispatch, Tap.dispatch), a cancellation that came first applied first.
func (ex *exchange) dispatch(at time.Time, data []byte, status int) {
	ex.t.cancels.settle()
	ex.t.dispatch(ex, at, data, status)
}
