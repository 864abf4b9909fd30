package tap

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/model"
)

// direction says which way a stdio chunk went.
type direction int

const (
	fromClient direction = iota // the client's stdin, on to the server
	fromServer                  // the server's stdout, on to the client
)

// stdioChunk is a copy of bytes that went one way, and when.
type stdioChunk struct {
	dir  direction
	data []byte
	at   time.Time
	gap  bool // bytes of dir before this chunk were dropped
}

// stdioSide carries copies of both directions' bytes to the one parser
// goroutine, in the order they passed. One queue rather than a side pipe
// per direction keeps the causal order a parser must see: a request before
// the response it caused, a notifications/cancelled before the answer that
// follows it. put never blocks: past limit bytes unread, the oldest chunks
// are dropped (the parser is told where, per direction), so memory is
// bounded and the newest bytes are always parsed, as with sidePipe.
type stdioSide struct {
	mu      sync.Mutex
	chunks  []stdioChunk
	size    int
	limit   int
	gapNext [2]bool // the next chunk of a direction follows dropped bytes
	lost    [2]lostBytes
	ended   bool
	wake    chan struct{}
	lastPut atomic.Int64 // when bytes last passed (unix ns)
}

// busyWindow: bytes that passed this recently mean the pipe is busy.
const busyWindow = time.Millisecond

// busy says whether bytes are flowing right now.
func (s *stdioSide) busy() bool {
	return time.Now().UnixNano()-s.lastPut.Load() < int64(busyWindow)
}

func newStdioSide(limit int64) *stdioSide {
	return &stdioSide{limit: int(limit), wake: make(chan struct{}, 1)}
}

// put copies b (bytes that went dir at `at`) into the queue.
func (s *stdioSide) put(dir direction, b []byte, at time.Time) {
	if len(b) == 0 {
		return
	}
	s.lastPut.Store(at.UnixNano())
	s.mu.Lock()
	if len(b) > s.limit {
		s.lost[dir].add(b[:len(b)-s.limit])
		b = b[len(b)-s.limit:] // b alone fills the queue: keep its end
		s.gapNext[dir] = true
	}
	for s.size+len(b) > s.limit && len(s.chunks) > 0 {
		s.dropOldest()
	}
	c := stdioChunk{dir: dir, data: append([]byte(nil), b...), at: at, gap: s.gapNext[dir]}
	s.gapNext[dir] = false
	s.chunks = append(s.chunks, c)
	s.size += len(b)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// dropOldest drops the oldest chunk; the next chunk of its direction (in
// the queue or still to come) is marked as following a gap.
func (s *stdioSide) dropOldest() {
	old := s.chunks[0]
	s.chunks[0] = stdioChunk{}
	s.chunks = s.chunks[1:]
	s.size -= len(old.data)
	s.lost[old.dir].add(old.data)
	for i := range s.chunks {
		if s.chunks[i].dir == old.dir {
			s.chunks[i].gap = true
			return
		}
	}
	s.gapNext[old.dir] = true
}

// lostBytes counts what the queue dropped of one direction: bytes, and
// the messages they ended (a line's end dropped is a message lost).
type lostBytes struct {
	bytes, messages int
}

func (l *lostBytes) add(b []byte) {
	l.bytes += len(b)
	l.messages += bytes.Count(b, []byte{'\n'})
}

// takeLost is what was dropped of dir since the last call.
func (s *stdioSide) takeLost(dir direction) lostBytes {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lost[dir]
	s.lost[dir] = lostBytes{}
	return l
}

// sayLagging warns that the parser fell behind dir: what the queue dropped,
// counted, at most once every lostEvery (a parser behind meets a gap at
// every burst); at the end (final) whatever is left unsaid.
func (s *stdioSession) sayLagging(dir direction, final bool) {
	now := time.Now()
	if !final && now.Sub(s.laggingSaid[dir]) < lostEvery {
		return // said lately: counted into the next
	}
	l := s.side.takeLost(dir)
	if l.bytes == 0 {
		return
	}
	s.laggingSaid[dir] = now
	s.t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnParseLagging),
		Message: fmt.Sprintf("the side parser fell behind the %s: %d messages (%d bytes) were not parsed (all were forwarded)", dirName(dir), l.messages, l.bytes)})
}

// trim drops all but the newest keep bytes the parser has not read.
func (s *stdioSide) trim(keep int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.size > keep && len(s.chunks) > 0 {
		s.dropOldest()
	}
}

// end tells the parser no more chunks come.
func (s *stdioSide) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next blocks until a chunk is queued; ok is false once the queue has ended
// and is empty.
func (s *stdioSide) next() (c stdioChunk, ok bool) {
	for {
		s.mu.Lock()
		if len(s.chunks) > 0 {
			c = s.chunks[0]
			s.chunks[0] = stdioChunk{}
			s.chunks = s.chunks[1:]
			s.size -= len(c.data)
			if len(s.chunks) == 0 {
				s.chunks = nil // a burst is over: give its memory back
			}
			s.mu.Unlock()
			return c, true
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return stdioChunk{}, false
		}
		<-s.wake
	}
}

// lineSplitter cuts one direction's bytes into newline-delimited messages
// of at most max bytes. A longer line is dropped as it passes (never held)
// and reported once whole, by its size and its first bytes.
type lineSplitter struct {
	max    int
	line   []byte
	size   int64 // bytes of the current line, kept or not
	over   bool  // the current line passed max
	head   []byte
	resync bool // after a gap: the rest of the current line is dropped
}

// headBytes of an oversized line are kept, to say what it was.
const headBytes = 4 << 10

// lineEnd is one line the splitter finished.
type lineEnd struct {
	line []byte // nil when over max (then head and size say what it was)
	head []byte
	size int64
}

// gap drops the line in progress: its start is lost.
func (l *lineSplitter) gap() {
	l.line, l.size, l.over, l.head = l.line[:0], 0, false, nil
	l.resync = true
}

// feed adds b and calls done for each line it ends.
func (l *lineSplitter) feed(b []byte, done func(lineEnd)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if !l.resync {
			l.add(part)
		}
		if i < 0 {
			return
		}
		b = b[i+1:]
		if l.resync {
			l.resync = false
			continue
		}
		end := lineEnd{size: l.size}
		if l.over {
			end.head = l.head
		} else {
			end.line = bytes.TrimSuffix(l.line, []byte{'\r'})
		}
		// The line is handed over: events may keep parts of it (arguments).
		l.line, l.size, l.over, l.head = nil, 0, false, nil
		done(end)
	}
}

func (l *lineSplitter) add(part []byte) {
	l.size += int64(len(part))
	if l.over {
		return
	}
	if len(l.line)+len(part) > l.max {
		l.over = true
		l.head = append([]byte(nil), l.line[:min(len(l.line), headBytes)]...)
		if n := headBytes - len(l.head); n > 0 {
			l.head = append(l.head, part[:min(n, len(part))]...)
		}
		l.line = l.line[:0]
		return
	}
	l.line = append(l.line, part...)
}
