package model

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"
)

// Sink takes events. Sources emit into a Sink; they never touch the store
// directly, so output and recording see exactly what the store applied.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Format of a writer.
type Format string

const (
	FormatJSON Format = "json"
	FormatText Format = "text"
)

// Writer writes events to a stream as JSON lines or text, redacted. A write
// error (a full disk) stops that writer only, and is reported once.
type Writer struct {
	mu     sync.Mutex
	name   string
	format Format
	w      *bufio.Writer
	closer io.Closer
	err    error
	// autoFlush flushes after every line (stdout: a user reads it live).
	autoFlush bool
}

// NewWriter writes to w. name says what it is in error messages ("--record
// out.jsonl"). closer may be nil.
func NewWriter(name string, w io.Writer, format Format, autoFlush bool, closer io.Closer) *Writer {
	return &Writer{name: name, format: format, w: bufio.NewWriterSize(w, 64<<10), closer: closer, autoFlush: autoFlush}
}

// Write writes one event. It returns an error only the first time a write
// fails; the writer is then disabled.
func (w *Writer) Write(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil
	}
	var line []byte
	if w.format == FormatText {
		line = append([]byte(TextLine(e)), '\n')
	} else {
		var err error
		if line, err = EncodeLine(e); err != nil {
			return nil // an event that cannot be encoded is skipped, not fatal
		}
	}
	if _, err := w.w.Write(line); err != nil {
		w.err = fmt.Errorf("%s: %w", w.name, err)
		return w.err
	}
	if w.autoFlush {
		if err := w.w.Flush(); err != nil {
			w.err = fmt.Errorf("%s: %w", w.name, err)
			return w.err
		}
	}
	return nil
}

// Close flushes and closes. It reports the first write error, if any.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		if err := w.w.Flush(); err != nil {
			w.err = fmt.Errorf("%s: %w", w.name, err)
		}
	}
	if w.closer != nil {
		if err := w.closer.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("%s: %w", w.name, err)
		}
	}
	return w.err
}

// Hub applies events to the store and, when the store took them (not a
// duplicate), writes them to every writer. It is the Sink sources use.
type Hub struct {
	Store   *Store
	writers []*Writer
	// OnWriteError is told when a writer fails (default: a warning event).
	OnWriteError func(error)
}

// NewHub makes a hub over a store.
func NewHub(s *Store, writers ...*Writer) *Hub {
	return &Hub{Store: s, writers: writers}
}

// AddWriter adds a writer; call before sources start.
func (h *Hub) AddWriter(w *Writer) { h.writers = append(h.writers, w) }

// Emit applies and writes one event.
func (h *Hub) Emit(e Event) {
	if !h.Store.Apply(e) {
		return
	}
	h.write(e)
	for _, n := range h.Store.TakeNotes() {
		h.write(n) // calls the store ended to stay bounded
	}
}

func (h *Hub) write(e Event) {
	for _, w := range h.writers {
		if err := w.Write(e); err != nil {
			if h.OnWriteError != nil {
				h.OnWriteError(err)
			}
			h.Store.Apply(Event{Time: time.Now().UTC(), Source: e.Source, SourceName: "toolscope",
				Kind: KindWarning, Code: "write_failed", Message: err.Error() + " (monitoring goes on)"})
		}
	}
}

// Close closes every writer and returns the first error.
func (h *Hub) Close() error {
	var first error
	for _, w := range h.writers {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
