package tap

import (
	"context"
	"errors"
	"io"
)

// errClientGone: the response body ended because the client left (or the
// proxy stopped writing to it).
var errClientGone = errors.New("client disconnected")

// upstreamError is an upstream read failure mid-body (the server died or
// the connection broke).
type upstreamError struct{ err error }

func (e *upstreamError) Error() string { return "upstream stream broke: " + e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

// teeBody is the upstream response body as the proxy reads it. Each chunk
// is copied into the side pipe without blocking, but the parser is only woken
// (a moment later: signalSoon) when the proxy comes back for the next chunk,
// that is once the previous one has been written and flushed to the client:
// the parser never runs ahead of the client's bytes. The proxy always reads again after a write (until the
// end) and closes the body when done, so no chunk waits for more data.
type teeBody struct {
	rc     io.ReadCloser
	pipe   *sidePipe
	client context.Context // the inbound request's context
	stream bool            // an event stream
	end    error
}

func (b *teeBody) Read(p []byte) (int, error) {
	// The previous chunk has reached the client.
	if b.stream {
		b.pipe.signalSoon()
	} else {
		b.pipe.signal() // a plain body's parser only collects it
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.pipe.put(p[:n])
	}
	if err != nil && b.end == nil {
		switch {
		case err == io.EOF:
			b.end = io.EOF
		case b.client.Err() != nil:
			// The proxy cancelled the upstream read because the client left.
			b.end = errClientGone
		default:
			b.end = &upstreamError{err}
		}
	}
	return n, err
}

// Close ends the copy. Closed before its end, the body was abandoned because
// the client could not be written to.
func (b *teeBody) Close() error {
	err := b.rc.Close()
	end := b.end
	if end == nil {
		end = errClientGone
	}
	b.pipe.finish(end)
	return err
}
