// Package output is where events go once they are seen: the Hub redacts
// each event (the one redaction policy, model.Redactor), applies it to the
// store and hands it to every Output (JSON lines or text on stdout, the
// --record file, the OpenTelemetry export, and any exporter added later).
// Nothing downstream of the hub ever sees a secret, and the hub never
// waits on an output.
package output

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"toolscope/model"
)

// Output receives every event the store took, redacted, in the order the
// hub saw them. Emit must return at once (an output that cannot keep up
// drops and counts, and says so); Close flushes, within a bound of its
// own, and returns the first error the output met.
type Output interface {
	Emit(model.Event)
	Close() error
}

// Problem is what an output met after Emit returned, for the hub to say.
type Problem struct {
	Code   model.WarningCode // write_failed, output_overflow or output_stuck
	Output string            // the output's name
	Source string            // the source of the event it met it on
	Err    error
}

// Reporter is an Output that meets problems on its own goroutine. The hub
// tells it, when added, whom to tell.
type Reporter interface {
	ReportTo(func(Problem))
}

// flusher is an Output that can be waited on until what it was given is
// written.
type flusher interface {
	Flush()
}

// Hub redacts events, applies them to the store and, when the store took
// them (not a duplicate), hands them to every output. It is the Sink
// sources use.
type Hub struct {
	Store *model.Store
	// Redactor is the run's policy (its --redact names, its secrets); set
	// before sources start. NewHub sets the policy without them.
	Redactor *model.Redactor
	// OnWriteError is told when an output fails (from that output's
	// goroutine) or is stuck (on a goroutine of its own), once each time.
	// The store gets a warning either way.
	OnWriteError func(error)
	// CloseTimeout bounds Close for outputs whose own Close does not
	// return (default 10 s): they are given up.
	CloseTimeout time.Duration

	outputs []Output
}

// NewHub makes a hub over a store.
func NewHub(s *model.Store, outputs ...Output) *Hub {
	h := &Hub{Store: s, Redactor: model.NewRedactor(model.RedactionConfig{})}
	for _, o := range outputs {
		h.Add(o)
	}
	return h
}

// Add adds an output; call before sources start.
func (h *Hub) Add(o Output) {
	if r, ok := o.(Reporter); ok {
		r.ReportTo(h.problem)
	}
	h.outputs = append(h.outputs, o)
}

// Emit redacts one event, applies it and hands it to the outputs.
func (h *Hub) Emit(e model.Event) {
	e = h.Redactor.Event(e)
	applied, notes := h.Store.ApplyTakingNotes(&e)
	if !applied {
		return
	}
	h.write(e)
	for _, n := range notes {
		h.write(n) // calls the store ended to stay bounded
	}
}

// write hands one event to every output; the writers share one entry, so
// its JSON line is encoded once.
func (h *Hub) write(e model.Event) {
	var en *entry
	for _, o := range h.outputs {
		if w, ok := o.(*Writer); ok {
			if en == nil {
				en = newEntry(e)
			}
			w.offer(en)
			continue
		}
		o.Emit(e)
	}
}

// problem says what an output met: in the store always (the screen shows
// it); a failure or a stuck output also on stderr (OnWriteError) and, when
// stuck, in the other outputs.
func (h *Hub) problem(p Problem) {
	ev := model.Event{Time: time.Now().UTC(), Source: p.Source, SourceName: "toolscope",
		Kind: model.KindWarning, Code: string(p.Code), Message: h.Redactor.Text(p.Err.Error())}
	switch p.Code {
	case model.WarnOutputOverflow: // already a line in that output
		h.Store.Apply(ev)
		return
	case model.WarnOutputStuck:
		ev.Message += " (monitoring goes on)" // stderr's printer says it there
		h.Store.Apply(ev)
		h.write(ev)
	default:
		ev.Message += " (monitoring goes on)"
		h.Store.Apply(ev) // not through the outputs: one of them just failed
	}
	switch {
	case h.OnWriteError == nil:
	case p.Code == model.WarnOutputStuck:
		go h.OnWriteError(p.Err) // said from an emitter, which must not wait on stderr
	default:
		h.OnWriteError(p.Err) // from the writer's own goroutine
	}
}

// Flush waits until every output that can be waited on has written what it
// was given (each within its own bound).
func (h *Hub) Flush() {
	for _, o := range h.outputs {
		if f, ok := o.(flusher); ok {
			f.Flush()
		}
	}
}

// Close closes the outputs and returns their errors. The exporters close
// first (their last warning still reaches the writers), then the writers;
// each group at once, waited for as long as their own Close (a writer at
// most its CloseTimeout) and at most CloseTimeout: an output still closing
// then is given up, said on stderr (OnWriteError) and in the error.
func (h *Hub) Close() error {
	var exporters, writers []Output
	for _, o := range h.outputs {
		if _, ok := o.(*Writer); ok {
			writers = append(writers, o)
		} else {
			exporters = append(exporters, o)
		}
	}
	return errors.Join(h.closeAll(exporters), h.closeAll(writers))
}

func (h *Hub) closeAll(outs []Output) error {
	bound := h.CloseTimeout
	if bound <= 0 {
		bound = 10 * time.Second
	}
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i, o := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = o.Close()
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return errors.Join(errs...)
	case <-time.After(bound):
		err := fmt.Errorf("an output did not close within %s: given up", bound)
		if h.OnWriteError != nil {
			h.OnWriteError(err)
		}
		return err
	}
}
