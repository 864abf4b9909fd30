package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Event is one Server-Sent Event read off a response stream.
type Event struct {
	Event, ID string
	Data      []byte
	// Oversized is set when the event's data passed the parse limit; Data is
	// then empty.
	Oversized bool
}

// Parser reads an event stream incrementally, as chunks arrive, following
// the WHATWG parsing rules (CR, LF or CRLF line ends; data lines joined with
// LF; a blank line dispatches). Memory is bounded by max per event. It is the
// one SSE reader of the project besides r3labs/sse (the feed's client): the
// tap feeds it the bytes it copies off a response, the demo platform and
// probe read a response through Read. Not safe for concurrent use.
type Parser struct {
	max     int
	onEvent func(Event)

	line      []byte
	lineOver  bool // the current line passed max: its rest is dropped
	afterCR   bool // the last byte was CR: an LF right after it ends nothing
	data      []byte
	hasData   bool
	over      bool
	event     string
	lastEvent string // the latest event type read, reused while it repeats
	id        string
	resync    bool // after a gap: drop lines up to the next blank line
}

// NewParser calls onEvent for each event, in order, from the goroutine
// that feeds it; the event's Data is onEvent's to keep.
func NewParser(max int64, onEvent func(Event)) *Parser {
	return &Parser{max: int(max), onEvent: onEvent}
}

// Gap is called when bytes were skipped: the event in progress is lost and
// parsing restarts after the next blank line.
func (p *Parser) Gap() {
	p.resetEvent()
	p.line, p.lineOver, p.afterCR = p.line[:0], false, false
	p.resync = true
}

// Feed parses the next bytes of the stream (any split: a line or a CRLF may
// straddle two calls).
func (p *Parser) Feed(b []byte) {
	for len(b) > 0 {
		if p.afterCR {
			p.afterCR = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			p.appendLine(b)
			return
		}
		p.appendLine(b[:i])
		if b[i] == '\r' {
			p.afterCR = true
		}
		b = b[i+1:]
		p.endLine()
	}
}

func (p *Parser) appendLine(b []byte) {
	if p.lineOver {
		return
	}
	if len(p.line)+len(b) > p.max+16 { // room for "data: "
		p.lineOver = true
		p.line = p.line[:0]
		if !p.resync {
			p.over = true
		}
		return
	}
	p.line = append(p.line, b...)
}

func (p *Parser) endLine() {
	line, over := p.line, p.lineOver
	p.line, p.lineOver = p.line[:0], false
	if len(line) == 0 && !over {
		if p.resync {
			p.resync = false
			p.resetEvent()
			return
		}
		p.dispatch()
		return
	}
	if p.resync || over || line[0] == ':' {
		return
	}
	field, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		p.hasData = true
		if p.over || len(p.data)+len(value)+1 > p.max {
			p.over, p.data = true, p.data[:0]
			return
		}
		p.data = append(append(p.data, value...), '\n')
	case "event":
		if string(value) != p.lastEvent {
			p.lastEvent = string(value) // a stream names its events alike: one copy
		}
		p.event = p.lastEvent
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = string(value)
		}
	}
}

func (p *Parser) dispatch() {
	if !p.hasData && !p.over {
		p.resetEvent()
		return
	}
	ev := Event{Event: p.event, ID: p.id, Oversized: p.over}
	if !p.over {
		ev.Data = append([]byte(nil), bytes.TrimSuffix(p.data, []byte{'\n'})...) // the callback may keep it
	}
	p.onEvent(ev)
	p.resetEvent()
}

func (p *Parser) resetEvent() {
	p.data, p.hasData, p.over, p.event = p.data[:0], false, false, ""
	// The last event id persists across events, as the spec says.
}

// End dispatches the event the stream ended inside (its data read, its blank
// line missing), as a reader that acts on the answer must; the WHATWG rules
// drop it, and the tap, which shows what a browser-like client would, never
// calls End. Lines not yet ended are taken as ended.
func (p *Parser) End() {
	if p.lineOver || len(p.line) > 0 {
		p.endLine()
	}
	p.afterCR = false
	if !p.resync {
		p.dispatch()
	}
}

// errStop ends Read when onEvent says it has what it wanted.
var errStop = errors.New("stop")

// Read reads an event stream from r to its end, calling onEvent for each
// event (the last one even without its blank line: see End) until onEvent
// reports done. An event whose data passes max is an error: a reader that
// acts on the answer cannot act on a part of it. It returns r's error, or
// nil at its end or when onEvent is done.
func Read(r io.Reader, max int64, onEvent func(Event) (done bool)) error {
	var failed error
	p := NewParser(max, func(e Event) {
		switch {
		case failed != nil:
		case e.Oversized:
			failed = fmt.Errorf("an SSE event over %d bytes", max)
		case onEvent(e):
			failed = errStop
		}
	})
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		p.Feed(buf[:n])
		if failed == nil && err == io.EOF {
			p.End()
		}
		switch {
		case errors.Is(failed, errStop):
			return nil
		case failed != nil:
			return failed
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}
