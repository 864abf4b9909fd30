package tap

import (
	"errors"
	"io"
	"sync"
	"time"
)

// errGap is returned once by sidePipe.Read where bytes were dropped because
// the parser fell more than the pipe's limit behind the wire.
var errGap = errors.New("side parser fell behind: bytes skipped")

// sidePipe carries a copy of a body from the proxy's copy loop to the parser
// goroutine. write never blocks and never fails: when the parser lags more
// than limit bytes behind, bytes are dropped (and the reader is told with
// errGap) rather than holding back the client. Memory is bounded by limit.
type sidePipe struct {
	mu      sync.Mutex
	buf     []byte
	off     int
	limit   int
	gap     bool  // bytes dropped; writes are dropped until the reader drains
	stopped bool  // the reader wants no more bytes
	end     error // set once the body ended: io.EOF or why it did not
	wake    chan struct{}
	done    chan struct{} // closed when end is set
	at      time.Time     // when the latest bytes came off the wire
	endAt   time.Time     // when the body ended
}

func newSidePipe(limit int64) *sidePipe {
	return &sidePipe{limit: int(limit), wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (p *sidePipe) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// write copies b in and wakes the reader.
func (p *sidePipe) write(b []byte) {
	p.put(b)
	p.signal()
}

// put copies b in, or drops it if the reader is too far behind, without
// waking the reader (the tee wakes it once the client has the bytes).
func (p *sidePipe) put(b []byte) {
	now := time.Now()
	p.mu.Lock()
	if p.stopped || p.end != nil {
		p.mu.Unlock()
		return
	}
	p.at = now
	if p.gap || len(p.buf)-p.off+len(b) > p.limit {
		p.gap = true
	} else {
		if p.off > 0 && len(p.buf)+len(b) > cap(p.buf) {
			// Reuse the consumed front before growing.
			n := copy(p.buf, p.buf[p.off:])
			p.buf, p.off = p.buf[:n], 0
		}
		p.buf = append(p.buf, b...)
	}
	p.mu.Unlock()
}

// finish records how the body ended; only the first call counts.
func (p *sidePipe) finish(err error) {
	p.mu.Lock()
	if p.end == nil {
		p.end, p.endAt = err, time.Now()
		close(p.done)
	}
	p.mu.Unlock()
	p.signal()
}

// stop tells the writer the reader is done (say, the body is over the parse
// limit): later writes cost nothing.
func (p *sidePipe) stop() {
	p.mu.Lock()
	p.stopped = true
	p.buf, p.off = nil, 0
	p.mu.Unlock()
}

// Read blocks until bytes, a gap or the end are available. After the last
// byte it returns the body's end: io.EOF, or the error that cut it short.
func (p *sidePipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.off < len(p.buf) {
			n := copy(b, p.buf[p.off:])
			p.off += n
			if p.off == len(p.buf) {
				p.buf, p.off = p.buf[:0], 0
				if cap(p.buf) > 1<<20 {
					p.buf = nil // a burst is over: give its memory back
				}
			}
			p.mu.Unlock()
			return n, nil
		}
		if p.gap {
			p.gap = false
			p.mu.Unlock()
			return 0, errGap
		}
		if p.end != nil {
			err := p.end
			p.mu.Unlock()
			return 0, err
		}
		p.mu.Unlock()
		<-p.wake
	}
}

var _ io.Reader = (*sidePipe)(nil)

// arrival is when the bytes the reader has just read came off the wire
// (the latest chunk's time: events are stamped with it, not with the time
// the parser got to them).
func (p *sidePipe) arrival() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at.IsZero() {
		return time.Now()
	}
	return p.at
}

// endTime is when the body ended (now, if it has not).
func (p *sidePipe) endTime() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.endAt.IsZero() {
		return time.Now()
	}
	return p.endAt
}

// wait stops the copy and blocks until the body has ended; it returns how.
func (p *sidePipe) wait() error {
	p.stop()
	for {
		p.mu.Lock()
		end := p.end
		p.mu.Unlock()
		if end != nil {
			return end
		}
		<-p.wake
	}
}
