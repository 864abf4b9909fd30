package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// eventFields lets UnmarshalJSON reuse the struct tags without recursing.
type eventFields Event

// MarshalJSON writes the event as docs/json-lines.md names it: time in UTC
// with sub-seconds, and for tool.progress always progress, total (null when
// unknown) and relayed. The bytes are encoding/json's for the struct (see
// appendEvent), written without reflection.
func (e Event) MarshalJSON() ([]byte, error) {
	b, err := appendEvent(make([]byte, 0, 512), &e, nil)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// UnmarshalJSON reads back what MarshalJSON wrote, losslessly.
func (e *Event) UnmarshalJSON(b []byte) error {
	var aux struct {
		eventFields
		Progress *float64 `json:"progress"`
		Total    *float64 `json:"total"`
		Relayed  *bool    `json:"relayed"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*e = Event(aux.eventFields)
	if aux.Progress != nil {
		e.Progress = *aux.Progress
	}
	e.Total = aux.Total
	if aux.Relayed != nil {
		e.Relayed = *aux.Relayed
	}
	return nil
}

func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// EncodeLine is one JSON line (with the trailing newline) for an event,
// redacted first and safe to view on a terminal.
func EncodeLine(e Event) ([]byte, error) { return Redactor{}.EncodeLine(e) }

// EncodeLine is EncodeLine with this Redactor's credential headers too: one
// redaction pass per line.
func (r Redactor) EncodeLine(e Event) ([]byte, error) {
	buf := lineBuffers.Get().(*[]byte)
	defer putLineBuffer(buf)
	line, err := r.AppendLine((*buf)[:0], e)
	*buf = line
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(line)), line...), nil // one allocation, of the line's size
}

// lineBuffers are EncodeLine's scratch buffers; one over maxPooledLine is
// dropped rather than kept.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledLine = 64 << 10

func putLineBuffer(b *[]byte) {
	if cap(*b) <= maxPooledLine {
		lineBuffers.Put(b)
	}
}

// AppendLine appends EncodeLine's line to dst: a writer reusing one buffer
// encodes an event without allocating (issue 12). Headers are redacted as
// they are written, the event's map is not copied. On an error dst is
// returned as it was.
func (r Redactor) AppendLine(dst []byte, e Event) ([]byte, error) {
	start := len(dst)
	b, err := appendEvent(dst, &e, &r) // terminal safe as it is written
	if err != nil {
		return dst[:start], err
	}
	return append(b, '\n'), nil
}

// DecodeLine reads one JSON line back into an event. A line without `kind`
// is an error: it is not a toolscope event.
func DecodeLine(line []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return Event{}, err
	}
	if e.Kind == "" {
		return Event{}, fmt.Errorf("no kind field")
	}
	return e, nil
}
