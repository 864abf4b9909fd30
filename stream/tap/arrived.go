package tap

import (
	"bytes"
	"io"
	"net/http"
)

// A tools/call arrives with its body in the same packet as its head. Such a
// body is read at once and forwarded from memory: net/http's transport then
// writes head and body to the upstream in one write, where a body it cannot
// see as in memory (the tee) makes it flush the head on its own first, a
// second write and a second packet per call. A body
// that is not all there after one read streams on through the tee as
// before, what was read first, so the tap never waits for a client's body.

// arrivedBodyMax bounds the body read at once; larger ones stream.
const arrivedBodyMax = 64 << 10

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

// forwardedBody is the request body the proxy forwards when the tap does not
// read it first (no --enforce): from memory when it had all arrived, else the
// tee over what was read and the rest.
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
	return ex.tee
}

// failedReader repeats the error the body's first Read met.
type failedReader struct{ err error }

func (f failedReader) Read([]byte) (int, error) { return 0, f.err }
