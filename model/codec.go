package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// eventFields lets MarshalJSON reuse the struct tags without recursing.
type eventFields Event

// MarshalJSON writes the event as the README's JSON-lines interface names it: time in UTC
// with sub-seconds, and for tool.progress always progress, total (null when
// unknown) and relayed.
func (e Event) MarshalJSON() ([]byte, error) {
	f := eventFields(e)
	f.Time = f.Time.UTC()
	b, err := json.Marshal(f)
	if err != nil || e.Kind != KindToolProgress {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	buf.WriteString(`,"progress":`)
	buf.WriteString(formatNumber(e.Progress))
	buf.WriteString(`,"total":`)
	if e.Total == nil {
		buf.WriteString("null")
	} else {
		buf.WriteString(formatNumber(*e.Total))
	}
	buf.WriteString(`,"relayed":`)
	buf.WriteString(strconv.FormatBool(e.Relayed))
	buf.WriteByte('}')
	return buf.Bytes(), nil
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
// redacted first and safe to view on a terminal. MarshalJSON is called
// directly: json.Marshal would compact and copy its already compact output
// again, the largest cost of the tap's JSON output (issue 12).
func EncodeLine(e Event) ([]byte, error) { return Redactor{}.EncodeLine(e) }

// EncodeLine is EncodeLine with this Redactor's credential headers too: one
// redaction pass per line.
func (r Redactor) EncodeLine(e Event) ([]byte, error) {
	b, err := r.Event(e).MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(TerminalSafeJSON(b), '\n'), nil
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
