package tap

import "bytes"

// sseEvent is one Server-Sent Event read off a response stream.
type sseEvent struct {
	Event, ID string
	Data      []byte
	// Oversized is set when the event's data passed the parse limit; Data is
	// then empty.
	Oversized bool
}

// sseParser reads an event stream incrementally, as chunks arrive, following
// the WHATWG parsing rules (CR, LF or CRLF line ends; data lines joined with
// LF; a blank line dispatches). Memory is bounded by max per event.
type sseParser struct {
	max     int
	onEvent func(sseEvent)

	line     []byte
	lineOver bool // the current line passed max: its rest is dropped
	afterCR  bool // the last byte was CR: an LF right after it ends nothing
	data     []byte
	hasData  bool
	over     bool
	event    string
	id       string
	resync   bool // after a gap: drop lines up to the next blank line
}

func newSSEParser(max int64, onEvent func(sseEvent)) *sseParser {
	return &sseParser{max: int(max), onEvent: onEvent}
}

// gap is called when bytes were skipped: the event in progress is lost and
// parsing restarts after the next blank line.
func (p *sseParser) gap() {
	p.resetEvent()
	p.line, p.lineOver, p.afterCR = p.line[:0], false, false
	p.resync = true
}

func (p *sseParser) feed(b []byte) {
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

func (p *sseParser) appendLine(b []byte) {
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

func (p *sseParser) endLine() {
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
		p.event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = string(value)
		}
	}
}

func (p *sseParser) dispatch() {
	if !p.hasData && !p.over {
		p.resetEvent()
		return
	}
	ev := sseEvent{Event: p.event, ID: p.id, Oversized: p.over}
	if !p.over {
		ev.Data = append([]byte(nil), bytes.TrimSuffix(p.data, []byte{'\n'})...) // the callback may keep it
	}
	p.onEvent(ev)
	p.resetEvent()
}

func (p *sseParser) resetEvent() {
	p.data, p.hasData, p.over, p.event = p.data[:0], false, false, ""
	// The last event id persists across events, as the spec says.
}
