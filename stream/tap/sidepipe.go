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
// than limit bytes behind, the oldest bytes it has not read are dropped (and
// the reader is told with errGap where they were) rather than holding back
// the client. So the pipe always holds the latest bytes: the end of a
// stream, where its result is, is parsed however far behind the parser
// fell. Memory is bounded by limit.
type sidePipe struct {
	mu      sync.Mutex
	ring    []byte // unread bytes: n of them from r, wrapping around
	r, n    int
	limit   int
	gap     bool  // bytes before the unread ones were dropped; Read says so first
	stopped bool  // the reader wants no more bytes
	end     error // set once the body ended: io.EOF or why it did not
	wake    chan struct{}
	at      time.Time   // when the latest bytes came off the wire
	endAt   time.Time   // when the body ended
	soon    *time.Timer // wakes the reader sideYield after signalSoon
	soonSet bool        // soon is armed
}

// ringSize is the ring a pipe starts with. A pipe hands it back when its
// reader stops, for the next response: a call's response otherwise
// allocates and zeroes it.
const ringSize = 4 << 10

var rings = sync.Pool{New: func() any { return new([ringSize]byte) }}

func newSidePipe(limit int64) *sidePipe {
	return &sidePipe{limit: int(limit), wake: make(chan struct{}, 1)}
}

func (p *sidePipe) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// signalSoon wakes the reader sideYield from now, when it has bytes to
// read. The tee calls it the moment the client has the previous chunk: a
// wake then put the parser on a core just as the client needed it (the
// forwarding delay of an SSE event, docs/performance.md); a moment later
// the client is done, and the event keeps its wire time.
func (p *sidePipe) signalSoon() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.soonSet || p.n == 0 && !p.gap || p.stopped || p.end != nil {
		return
	}
	p.soonSet = true
	if p.soon == nil {
		p.soon = time.AfterFunc(sideYield, p.soonFired)
	} else {
		p.soon.Reset(sideYield)
	}
}

func (p *sidePipe) soonFired() {
	p.mu.Lock()
	p.soonSet = false
	p.mu.Unlock()
	p.signal()
}

// put copies b in, dropping the oldest unread bytes if the reader is too
// far behind, without waking the reader (the tee wakes it once the client
// has the bytes).
func (p *sidePipe) put(b []byte) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.end != nil || len(b) == 0 {
		return
	}
	p.at = now
	if len(b) >= p.limit {
		// b alone fills the pipe: keep its end.
		p.gap = p.gap || p.n > 0 || len(b) > p.limit
		p.grow(p.limit)
		p.r, p.n = 0, copy(p.ring, b[len(b)-p.limit:])
		return
	}
	if need := p.n + len(b); need > len(p.ring) {
		p.grow(min(max(need, 2*len(p.ring), ringSize), p.limit))
		if over := need - len(p.ring); over > 0 {
			p.r, p.n = (p.r+over)%len(p.ring), p.n-over
			p.gap = true
		}
	}
	w := (p.r + p.n) % len(p.ring)
	c := copy(p.ring[w:], b)
	copy(p.ring, b[c:])
	p.n += len(b)
}

// grow makes the ring size bytes long (never shorter), the unread bytes
// moved to its start.
func (p *sidePipe) grow(size int) {
	if size <= len(p.ring) {
		return
	}
	var ring []byte
	if size == ringSize {
		ring = rings.Get().(*[ringSize]byte)[:]
	} else {
		ring = make([]byte, size)
	}
	p.n = p.copyOut(ring)
	p.releaseRing()
	p.ring, p.r = ring, 0
}

// releaseRing gives a pooled-size ring back; the pipe holds no reference
// to it after (its caller replaces p.ring).
func (p *sidePipe) releaseRing() {
	if len(p.ring) == ringSize && cap(p.ring) == ringSize {
		rings.Put((*[ringSize]byte)(p.ring))
	}
	p.ring = nil
}

// copyOut copies unread bytes to b without consuming them.
func (p *sidePipe) copyOut(b []byte) int {
	if p.n == 0 {
		return 0
	}
	first := p.ring[p.r:min(p.r+p.n, len(p.ring))]
	c := copy(b, first)
	if c == len(first) {
		c += copy(b[c:], p.ring[:p.n-len(first)])
	}
	return c
}

// finish records how the body ended; only the first call counts.
func (p *sidePipe) finish(err error) {
	p.mu.Lock()
	if p.end == nil {
		p.end, p.endAt = err, time.Now()
		if p.soon != nil {
			p.soon.Stop() // the end wakes the reader now
		}
	}
	p.mu.Unlock()
	p.signal()
}

// stop tells the writer the reader is done (say, the body is over the parse
// limit): later writes cost nothing.
func (p *sidePipe) stop() {
	p.mu.Lock()
	p.stopped = true
	p.releaseRing()
	p.r, p.n = 0, 0
	p.mu.Unlock()
}

// Read blocks until bytes, a gap or the end are available. A gap comes
// before the bytes that follow it. After the last byte it returns the
// body's end: io.EOF, or the error that cut it short.
func (p *sidePipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.gap {
			p.gap = false
			p.mu.Unlock()
			return 0, errGap
		}
		if p.n > 0 {
			c := p.copyOut(b)
			p.r, p.n = (p.r+c)%len(p.ring), p.n-c
			if p.n == 0 {
				p.r = 0
				if len(p.ring) > 1<<20 {
					p.ring = nil // a burst is over: give its memory back
				}
			}
			p.mu.Unlock()
			return c, nil
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

// sawBytes says whether any body byte came off the wire.
func (p *sidePipe) sawBytes() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.at.IsZero()
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
