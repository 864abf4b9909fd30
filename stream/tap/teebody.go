package tap

import (
	"context"
	"errors"
	"io"
)

// Why a response body ended before its end, as the parser is told.
var (
	errClientGone  = errors.New("client disconnected")
	errClosedEarly = errors.New("response closed before its end")
)

// upstreamError is an upstream read failure mid-body (the server died or
// the connection broke).
type upstreamError struct{ err error }

func (e *upstreamError) Error() string { return "upstream stream broke: " + e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

// teeBody is the upstream response body as the proxy reads it: every chunk
// goes to the client first (the proxy's copy loop) and is copied, without
// blocking, into the side pipe.
type teeBody struct {
	rc     io.ReadCloser
	pipe   *sidePipe
	client context.Context // the inbound request's context
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.pipe.write(p[:n])
	}
	if err != nil {
		switch {
		case err == io.EOF:
			b.pipe.finish(io.EOF)
		case b.client.Err() != nil:
			// The proxy cancelled the upstream read because the client left.
			b.pipe.finish(errClientGone)
		default:
			b.pipe.finish(&upstreamError{err})
		}
	}
	return n, err
}

// Close before the end means the proxy gave up writing to the client.
func (b *teeBody) Close() error {
	err := b.rc.Close()
	b.pipe.finish(errClientGone)
	return err
}
