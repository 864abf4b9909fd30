package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/sse"
	"toolscope/model"
)

// maxResponseBytes bounds what probe reads of one answer.
const maxResponseBytes = 16 << 20

// maxShownBody is how much of a body a case's detail keeps.
const maxShownBody = 4096

// Exchange is a case's request as sent and the answer (redacted, once the
// case is over, with its result).
type Exchange struct {
	RequestHeader map[string]string `json:"request_header"`
	RequestBody   string            `json:"request_body"`
	ResponseBody  string            `json:"response_body,omitempty"` // the first 4 KiB
}

// timedProgress is one progress notification and when it came.
type timedProgress struct {
	at time.Time
	p  jsonrpc.Progress
}

// reply is what came back for one request.
type reply struct {
	requestID int64
	status    int
	msgs      []jsonrpc.Message
	progress  []timedProgress
	err       error // transport failure
	exchange  Exchange
}

// response is the JSON-RPC response to the request, else any response
// (echoed is false then: its id is not the request's).
func (r reply) response() (m *jsonrpc.Message, echoed bool) {
	want := jsonrpc.IDKey([]byte(strconv.FormatInt(r.requestID, 10)))
	var other *jsonrpc.Message
	for i := range r.msgs {
		if r.msgs[i].Kind != jsonrpc.KindResponse {
			continue
		}
		if r.msgs[i].Key == want {
			return &r.msgs[i], true
		}
		if other == nil {
			other = &r.msgs[i]
		}
	}
	return other, false
}

// send POSTs one call on a new connection and reads the whole answer.
func (p *prober) send(ctx context.Context, c *call) reply {
	body, err := c.body()
	if err != nil {
		return reply{requestID: c.id, err: err}
	}
	h, err := c.header(p.cfg.Credential)
	if err != nil {
		return reply{requestID: c.id, err: fmt.Errorf("minting the token: %w", err)}
	}
	return p.post(ctx, c.id, body, h)
}

// post sends one JSON-RPC body and reads the answer: one JSON body, or an
// SSE stream up to the response.
func (p *prober) post(ctx context.Context, id int64, body []byte, h http.Header) reply {
	r := reply{requestID: id}
	r.exchange = Exchange{RequestHeader: headerMap(h), RequestBody: string(body)} // redacted with the result
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.URL, bytes.NewReader(body))
	if err != nil {
		r.err = err
		return r
	}
	req.Header = h
	resp, err := p.http.Do(req)
	if err != nil {
		r.err = err
		if !p.answered && p.unreachable == nil && !errors.Is(ctx.Err(), context.Canceled) {
			p.unreachable = unreachable(p.cfg.URL, err, p.cfg.Timeout)
		}
		return r
	}
	p.answered = true
	defer resp.Body.Close()
	r.status = resp.StatusCode
	var shown bytes.Buffer
	in := io.TeeReader(io.LimitReader(resp.Body, maxResponseBytes), &limitedWriter{w: &shown, n: maxShownBody})
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		r.err = readEvents(in, &r)
	} else if b, err := io.ReadAll(in); err != nil {
		r.err = err
	} else if body := jsonrpc.Read(b); body.Err == nil {
		r.msgs = body.Messages
	}
	r.exchange.ResponseBody = model.SanitizeBlock(shown.String())
	return r
}

// readEvents reads SSE events until the response to the request.
func readEvents(body io.Reader, r *reply) error {
	return sse.Read(body, maxResponseBytes, func(e sse.Event) bool {
		return len(e.Data) > 0 && r.take(e.Data)
	})
}

// take records the messages of one SSE event; it reports whether a response
// was among them.
func (r *reply) take(payload []byte) bool {
	body := jsonrpc.Read(payload)
	if body.Err != nil {
		return false
	}
	done := false
	for _, m := range body.Messages {
		switch {
		case m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodProgress:
			if m.ProgressErr == nil {
				r.progress = append(r.progress, timedProgress{at: time.Now(), p: m.Progress})
			}
		case m.Kind == jsonrpc.KindResponse:
			done = true
		}
		r.msgs = append(r.msgs, m)
	}
	return done
}

// headerMap is a request's headers, one value each.
func headerMap(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		if len(vs) > 0 {
			out[k] = vs[0]
		}
	}
	return out
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}
