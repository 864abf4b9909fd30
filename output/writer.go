package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
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
	defaultQueueLen = 8192
	// defaultQueueBytes: an eighth of the 512 MiB memory ceiling
	// (docs/security.md), so a stalled recording (wire lines of up to
	// twice --record-body-limit each) and stdout stay well under it.
	defaultQueueBytes   = 64 << 20
	defaultStallAfter   = 5 * time.Second
	defaultCloseTimeout = 2 * time.Second
)

// WriterConfig says what a Writer writes and how.
type WriterConfig struct {
	Name   string // says what it is in messages: "--record out.jsonl"
	Format Format // JSON lines (the default) or text
	Closer io.Closer
	// MaxDelay is the longest a written line stays in the buffer while
	// events keep coming (default 100 ms); an idle writer flushes within 2 ms.
	MaxDelay time.Duration
	// Wire: write wire events (a recording); other writers leave them out
	// (the screen's lines are not the place for whole bodies).
	Wire bool
	// QueueLen bounds the events waiting to be written (default 8192).
	// Past it an event is dropped whole and counted; the count is written
	// (an output_overflow warning line) before the next line that is.
	QueueLen int
	// QueueBytes bounds the bytes of the events waiting to be written
	// (default 64 MiB; each counted as its line's size, eventBytes), past
	// which they are dropped and counted as past QueueLen. An event larger
	// than the bound is taken only into an empty queue.
	QueueBytes int64
	// StallAfter is how long a write may take before the writer is said to
	// be stuck (default 5 s): once, on stderr and as an output_stuck
	// warning; its events are dropped and counted until the write returns.
	StallAfter time.Duration
	// CloseTimeout bounds Close's wait for what is queued to be written
	// (default 2 s); past it the writer is given up, its goroutine left to
	// its write.
	CloseTimeout time.Duration
}

// Writer writes events to a stream as JSON lines or text. Emit never
// waits: it queues the event for the writer's goroutine, which encodes and
// writes in batches, flushing 2 ms after the queue empties and at least
// every MaxDelay, so a crash loses at most that much of a recording. A
// full queue (QueueLen events or QueueBytes) drops the event and counts it
// (the output says how many lines it lost once it can write again), so a
// stalled writer holds a bounded memory; a write error stops this writer only
// and is reported once. A JSON line is encoded once for every writer (the
// hub shares it).
type Writer struct {
	cfg    WriterConfig
	out    *bufio.Writer
	queue  chan item
	done   chan struct{}
	report func(Problem) // set by the hub before the first Emit

	mu     sync.RWMutex // offer holds it shared, Close alone: no send on a closed queue
	closed bool

	lost         atomic.Int64 // events dropped and not yet said
	queuedBytes  atomic.Int64 // eventBytes of the events in the queue
	offered      atomic.Int64 // events given to Emit before Close
	buffered     atomic.Int64 // events in the buffer (written, or said lost), not yet flushed
	accounted    atomic.Int64 // events flushed (written, or said lost)
	writingSince atomic.Int64 // UnixNano when the write under way began; 0 when none is
	stuckSaid    atomic.Bool
	givenUp      atomic.Bool // by Close: what its write then meets is not said

	err       error // the loop's; read after done
	closeOnce sync.Once
	closeErr  error
}

// item is an event to write (lost: the events dropped just before it), or
// (flushed set) a request to flush and say so.
type item struct {
	entry   *entry
	lost    int64
	flushed chan struct{}
}

// entry is one event on its way to the writers: its JSON line is encoded
// once, by the first writer that needs it, and shared.
type entry struct {
	event model.Event
	bytes int64 // eventBytes, counted against each writer's QueueBytes
	once  sync.Once
	line  []byte
}

func newEntry(e model.Event) *entry {
	en := &entry{event: e}
	en.bytes = eventBytes(&en.event)
	return en
}

func (en *entry) jsonLine() []byte {
	en.once.Do(func() { en.line = EncodeLine(&en.event) })
	return en.line
}

// NewWriter writes to w until Close.
func NewWriter(w io.Writer, cfg WriterConfig) *Writer {
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = defaultMaxDelay
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = defaultQueueLen
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = defaultQueueBytes
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = defaultStallAfter
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = defaultCloseTimeout
	}
	wr := &Writer{cfg: cfg, queue: make(chan item, cfg.QueueLen), done: make(chan struct{})}
	wr.out = bufio.NewWriterSize(timedWriter{wr, w}, 64<<10)
	go wr.loop()
	return wr
}

// ReportTo makes the writer tell report of its problems.
func (w *Writer) ReportTo(report func(Problem)) { w.report = report }

// Emit queues one event; it never waits. After Close it does nothing.
func (w *Writer) Emit(e model.Event) { w.offer(newEntry(e)) }

// offer queues an entry, or drops and counts it when the queue is full:
// QueueLen events, or QueueBytes.
func (w *Writer) offer(en *entry) {
	if en.event.Kind == model.KindWire && !w.cfg.Wire {
		return
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return
	}
	w.offered.Add(1)
	if queued := w.queuedBytes.Add(en.bytes); queued > w.cfg.QueueBytes && queued != en.bytes {
		w.queuedBytes.Add(-en.bytes)
		w.drop(en, 0)
		return
	}
	lost := w.lost.Swap(0)
	select {
	case w.queue <- item{entry: en, lost: lost}:
	default:
		w.queuedBytes.Add(-en.bytes)
		w.drop(en, lost)
	}
}

// drop counts en lost, with the lost count it was to carry.
func (w *Writer) drop(en *entry, carried int64) {
	w.lost.Add(carried + 1)
	w.checkStuck(en.event.Source)
}

// checkStuck says once that the write under way has taken past StallAfter.
func (w *Writer) checkStuck(source string) {
	since := w.writingSince.Load()
	if since == 0 || time.Since(time.Unix(0, since)) < w.cfg.StallAfter || w.stuckSaid.Swap(true) {
		return
	}
	w.tell(Problem{Code: model.WarnOutputStuck, Source: source, Output: w.cfg.Name,
		Err: fmt.Errorf("%s: a write has not completed for %s: its events are dropped and counted until it does",
			w.cfg.Name, w.cfg.StallAfter)})
}

func (w *Writer) tell(p Problem) {
	if w.report != nil {
		w.report(p)
	}
}

// Flush waits until every event emitted before it is written and flushed,
// at most CloseTimeout (a stuck writer is not waited for).
func (w *Writer) Flush() {
	flushed := make(chan struct{})
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return
	}
	timeout := time.NewTimer(w.cfg.CloseTimeout)
	defer timeout.Stop()
	select {
	case w.queue <- item{flushed: flushed}:
	case <-timeout.C:
		w.mu.RUnlock()
		return
	}
	w.mu.RUnlock()
	select {
	case <-flushed:
	case <-w.done:
	case <-timeout.C:
	}
}

// Close writes what is queued, flushes, closes the closer and returns the
// first error, waiting at most CloseTimeout: a writer that cannot finish
// by then is given up (the error says so) and its goroutine left behind.
func (w *Writer) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		close(w.queue)
		w.mu.Unlock()
		timeout := time.NewTimer(w.cfg.CloseTimeout)
		defer timeout.Stop()
		select {
		case <-w.done:
			w.closeErr = w.err
		case <-timeout.C:
			w.givenUp.Store(true)
			w.closeErr = &GivenUpError{Name: w.cfg.Name, After: w.cfg.CloseTimeout, Unwritten: int(w.offered.Load() - w.accounted.Load())}
			if w.cfg.Closer != nil {
				go w.cfg.Closer.Close() // may block as the write does: not waited for
			}
			return
		}
		if w.cfg.Closer != nil {
			if err := w.cfg.Closer.Close(); err != nil && w.closeErr == nil {
				w.closeErr = fmt.Errorf("%s: %w", w.cfg.Name, err)
			}
		}
	})
	return w.closeErr
}

// GivenUpError is Close's error for a writer that did not finish in time.
type GivenUpError struct {
	Name      string
	After     time.Duration
	Unwritten int // events neither written nor said lost
}

func (e *GivenUpError) Error() string {
	return fmt.Sprintf("%s: not written to within %s of closing: given up with %d events not written", e.Name, e.After, e.Unwritten)
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
				if lost := w.lost.Swap(0); lost > 0 {
					w.writeLost(lost, last.Source)
				}
				w.flush(last)
				return
			}
			if it.flushed != nil {
				flush()
				close(it.flushed)
				continue
			}
			if it.lost > 0 {
				w.writeLost(it.lost, it.entry.event.Source)
			}
			w.write(it.entry)
			w.queuedBytes.Add(-it.entry.bytes)
			last = it.entry.event
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

// writeLost writes, where the lines were lost, how many: an
// output_overflow warning line, told to the hub too.
func (w *Writer) writeLost(n int64, source string) {
	msg := fmt.Sprintf("%s could not keep up: %d lines lost here (its queue of %d lines or %s was full)", w.cfg.Name, n, w.cfg.QueueLen, sizeText(w.cfg.QueueBytes))
	ev := model.Event{Time: time.Now().UTC(), Source: source, SourceName: "toolscope", Kind: model.KindWarning,
		Code: string(model.WarnOutputOverflow), Message: msg}
	w.write(&entry{event: ev})
	w.buffered.Add(n) // unwritten until the line saying so is
	w.tell(Problem{Code: model.WarnOutputOverflow, Source: source, Output: w.cfg.Name, Err: errors.New(msg)})
}

func (w *Writer) write(en *entry) {
	if w.err != nil {
		return // stopped: the queue is still drained so emitters never wait on it
	}
	var line []byte
	if w.cfg.Format == FormatText {
		line = append([]byte(model.TextLine(en.event)), '\n')
	} else {
		line = en.jsonLine()
	}
	if w.out.Buffered() > 0 && w.out.Available() < len(line) {
		// Whole lines per write: a reader of the file (tail -f, a crash)
		// never sees half a line unless one line is over 64 KiB.
		if err := w.out.Flush(); err != nil {
			w.fail(err, en.event)
			return
		}
		w.accounted.Add(w.buffered.Swap(0))
	}
	if _, err := w.out.Write(line); err != nil {
		w.fail(err, en.event)
		return
	}
	w.buffered.Add(1)
}

func (w *Writer) flush(last model.Event) {
	if w.err == nil {
		if err := w.out.Flush(); err != nil {
			w.fail(err, last)
			return
		}
		w.accounted.Add(w.buffered.Swap(0))
	}
}

func (w *Writer) fail(err error, e model.Event) {
	w.err = fmt.Errorf("%s: %w", w.cfg.Name, err)
	if w.givenUp.Load() {
		return // its file closed under it: the give-up was said
	}
	w.tell(Problem{Code: model.WarnWriteFailed, Source: e.Source, Output: w.cfg.Name, Err: w.err})
}

// timedWriter notes when each write to the stream begins and ends, so a
// write that does not return is seen (checkStuck).
type timedWriter struct {
	w   *Writer
	out io.Writer
}

func (t timedWriter) Write(p []byte) (int, error) {
	t.w.writingSince.Store(time.Now().UnixNano())
	n, err := t.out.Write(p)
	t.w.writingSince.Store(0)
	t.w.stuckSaid.Store(false)
	return n, err
}

// sizeText says n bytes in the largest binary unit that divides it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
