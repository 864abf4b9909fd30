// Package output is where events go once the store has taken them: the Hub
// applies each event to the store and hands it to every Output (JSON lines
// or text on stdout, the --record file, and any exporter added later).
// Writers encode and write off the emitting goroutine, in batches.
package output

import (
	"time"

	"toolscope/model"
)

// Output receives every event the store took, in the order the hub saw
// them. Emit may wait (a full queue) but must not drop; Close flushes and
// returns the first error the output met.
type Output interface {
	Emit(model.Event)
	Close() error
}

// Reporter is an Output that meets errors after Emit returned (it writes
// on its own goroutine). The hub tells it, when added, whom to tell.
type Reporter interface {
	ReportTo(func(err error, during model.Event))
}

// flusher is an Output that can be waited on until what it was given is
// written.
type flusher interface {
	Flush()
}

// Hub applies events to the store and, when the store took them (not a
// duplicate), hands them to every output. It is the Sink sources use.
type Hub struct {
	Store   *model.Store
	outputs []Output
	// OnWriteError is told when an output fails, once per output, from the
	// output's goroutine. The store gets a write_failed warning either way.
	OnWriteError func(error)
}

// NewHub makes a hub over a store.
func NewHub(s *model.Store, outputs ...Output) *Hub {
	h := &Hub{Store: s}
	for _, o := range outputs {
		h.Add(o)
	}
	return h
}

// Add adds an output; call before sources start.
func (h *Hub) Add(o Output) {
	if r, ok := o.(Reporter); ok {
		r.ReportTo(h.failed)
	}
	h.outputs = append(h.outputs, o)
}

// Emit applies one event and hands it to the outputs.
func (h *Hub) Emit(e model.Event) {
	applied, notes := h.Store.ApplyTakingNotes(e)
	if !applied {
		return
	}
	h.write(e)
	for _, n := range notes {
		h.write(n) // calls the store ended to stay bounded
	}
}

func (h *Hub) write(e model.Event) {
	for _, o := range h.outputs {
		o.Emit(e)
	}
}

// failed says an output's error and records it in the store only (not
// through the outputs: one of them just failed).
func (h *Hub) failed(err error, e model.Event) {
	if h.OnWriteError != nil {
		h.OnWriteError(err)
	}
	h.Store.Apply(model.Event{Time: time.Now().UTC(), Source: e.Source, SourceName: "toolscope",
		Kind: model.KindWarning, Code: string(model.WarnWriteFailed), Message: err.Error() + " (monitoring goes on)"})
}

// Flush waits until every output that can be waited on has written what it
// was given (and said any error that met).
func (h *Hub) Flush() {
	for _, o := range h.outputs {
		if f, ok := o.(flusher); ok {
			f.Flush()
		}
	}
}

// Close closes every output and returns the first error.
func (h *Hub) Close() error {
	var first error
	for _, o := range h.outputs {
		if err := o.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
