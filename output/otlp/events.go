package otlp

import "time"

// Kinds of span events.
const (
	eventProgress uint8 = iota + 1
	eventWarning
	eventCancelled
	eventRound // a round of a multi-round call ended (message: its resultType, code: what it asked)
)

// spanEvent is one progress notification, warning or cancellation, kept
// until the attempt's span is made.
type spanEvent struct {
	kind        uint8
	at          time.Time
	fromTap     bool
	progress    float64
	total       *float64
	message     string
	relayed     *bool // nil where nothing relays (plain MCP)
	afterCancel bool
	code        string
	round       int
}

const logHalf = maxSpanEvents / 2

// eventLog keeps the first logHalf events and the latest logHalf: how a
// call started and how it ended, whatever its length.
type eventLog struct {
	head  []spanEvent
	tail  []spanEvent // a ring of logHalf, made when the head is full
	nTail int         // events offered past the head
}

func (l *eventLog) add(ev spanEvent) {
	if len(l.head) < logHalf {
		l.head = append(l.head, ev)
		return
	}
	if l.tail == nil {
		l.tail = make([]spanEvent, logHalf)
	}
	l.tail[l.nTail%logHalf] = ev
	l.nTail++
}

// dropped is how many events were left out between head and tail.
func (l *eventLog) dropped() int { return max(l.nTail-logHalf, 0) }

// each calls f on the kept events, oldest first.
func (l *eventLog) each(f func(*spanEvent)) {
	for i := range l.head {
		f(&l.head[i])
	}
	n := min(l.nTail, logHalf)
	for i := 0; i < n; i++ {
		f(&l.tail[(l.nTail-n+i)%logHalf])
	}
}
