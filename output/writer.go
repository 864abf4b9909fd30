package output

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"

	"toolscope/model"
)

// Format of a writer.
type Format string

const (
	FormatJSON Format = "json"
	FormatText Format = "text"
)

// Defaults of a WriterConfig.
const (
	defaultMaxDelay = 100 * time.Millisecond
	defaultQueueLen = 1024
)

// WriterConfig says what a Writer writes and how.
type WriterConfig struct {
	Name     string // says what it is in error messages: "--record out.jsonl"
	Format   Format // JSON lines (the default) or text
	Redactor model.Redactor
	Closer   io.Closer // closed by Close; may be nil
	// MaxDelay is the longest a written line stays in the buffer while
	// events keep coming (default 100 ms); an idle writer flushes within 2 ms.
	MaxDelay time.Duration
	// Wire: write wire events (a recording); other writers leave them out
	// (the screen's lines are not the place for whole bodies).
	Wire bool
	// QueueLen bounds the events waiting to be written (default 1024);
	// past it Emit waits, so memory stays bounded and no line is lost.
	QueueLen int
}

// Writer writes events to a stream as JSON lines or text, redacted. Emit
// only queues the event: one goroutine encodes and writes them in batches,
// flushing 2 ms after the queue empties and at least every MaxDelay, so a crash
// loses at most that much of a recording. A write error (a full disk) stops
// this writer only, and is reported once.
type Writer struct {
	cfg    WriterConfig
	out    *bufio.Writer
	line   []byte // the loop's: each event is encoded into it, no new buffer per line
	queue  chan item
	done   chan struct{}
	report func(error, model.Event) // set by the hub before the first Emit

	mu     sync.RWMutex // Emit holds it shared, Close alone: no send on a closed queue
	closed bool

	err       error // the loop's; read after done
	closeOnce sync.Once
}

// item is an event to write, or (flushed set) a request to flush and say so.
type item struct {
	e       model.Event
	flushed chan struct{}
}

// NewWriter writes to w until Close.
func NewWriter(w io.Writer, cfg WriterConfig) *Writer {
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = defaultMaxDelay
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = defaultQueueLen
	}
	wr := &Writer{cfg: cfg, out: bufio.NewWriterSize(w, 64<<10),
		queue: make(chan item, cfg.QueueLen), done: make(chan struct{})}
	go wr.loop()
	return wr
}

// ReportTo makes the writer tell report of its first error.
func (w *Writer) ReportTo(report func(error, model.Event)) { w.report = report }

// Emit queues one event; it waits while the queue is full. After Close it
// does nothing.
func (w *Writer) Emit(e model.Event) {
	if e.Kind == model.KindWire && !w.cfg.Wire {
		return
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if !w.closed {
		w.queue <- item{e: e}
	}
}

// Flush waits until every event emitted before it is written and flushed.
func (w *Writer) Flush() {
	flushed := make(chan struct{})
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return
	}
	w.queue <- item{flushed: flushed}
	w.mu.RUnlock()
	<-flushed
}

// Close writes what is queued, flushes, closes the closer and returns the
// first error.
func (w *Writer) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		close(w.queue)
		w.mu.Unlock()
		<-w.done
		if w.cfg.Closer != nil {
			if err := w.cfg.Closer.Close(); err != nil && w.err == nil {
				w.err = fmt.Errorf("%s: %w", w.cfg.Name, err)
			}
		}
	})
	return w.err
}

func (w *Writer) loop() {
	defer close(w.done)
	var last model.Event
	flushedAt := time.Now()
	// An idle writer flushes after idleLinger, not at once: under load the
	// queue empties between almost every two events, and a flush each time
	// was a write(2) per event.
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	lingering := false
	flush := func() {
		w.flush(last)
		flushedAt = time.Now()
	}
	for {
		select {
		case it, ok := <-w.queue:
			if !ok {
				linger.Stop()
				w.flush(last)
				return
			}
			if it.flushed != nil {
				flush()
				close(it.flushed)
				continue
			}
			w.write(it.e)
			last = it.e
			switch {
			case time.Since(flushedAt) >= w.cfg.MaxDelay:
				flush()
			case len(w.queue) == 0 && !lingering:
				linger.Reset(min(idleLinger, w.cfg.MaxDelay))
				lingering = true
			}
		case <-linger.C:
			lingering = false
			flush()
		}
	}
}

// idleLinger is how long a line waits for company before an idle writer
// flushes: no one watching a terminal or a file sees 2 ms.
const idleLinger = 2 * time.Millisecond

func (w *Writer) write(e model.Event) {
	if w.err != nil {
		return // stopped: the queue is still drained so emitters never wait on it
	}
	line, err := w.encode(e)
	if err != nil {
		return // an event that cannot be encoded is skipped, not fatal
	}
	if w.out.Buffered() > 0 && w.out.Available() < len(line) {
		// Whole lines per write: a reader of the file (tail -f, a crash)
		// never sees half a line unless one line is over 64 KiB.
		if err := w.out.Flush(); err != nil {
			w.fail(err, e)
			return
		}
	}
	if _, err := w.out.Write(line); err != nil {
		w.fail(err, e)
	}
}

// maxKeptLine bounds the line buffer kept between events: one huge event
// does not pin its memory for the writer's life.
const maxKeptLine = 256 << 10

// encode is the event's line in the writer's own buffer, valid until the
// next call.
func (w *Writer) encode(e model.Event) ([]byte, error) {
	if cap(w.line) > maxKeptLine {
		w.line = nil
	}
	if w.cfg.Format == FormatText {
		w.line = append(append(w.line[:0], w.cfg.Redactor.TextLine(e)...), '\n')
		return w.line, nil
	}
	var err error
	w.line, err = w.cfg.Redactor.AppendLine(w.line[:0], e)
	return w.line, err
}

func (w *Writer) flush(last model.Event) {
	if w.err == nil {
		if err := w.out.Flush(); err != nil {
			w.fail(err, last)
		}
	}
}

func (w *Writer) fail(err error, e model.Event) {
	w.err = fmt.Errorf("%s: %w", w.cfg.Name, err)
	if w.report != nil {
		w.report(w.err, e)
	}
}
