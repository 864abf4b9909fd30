package feed

import (
	"sync/atomic"

	"github.com/r3labs/sse/v2"

	"toolscope/decoder/feedevent"
	"toolscope/model"
)

const (
	// workerQueue bounds the events read but not yet ingested.
	workerQueue = 256
	// bigEvent: an event this large is waited for before the next is read,
	// so the queue never holds more than one of them.
	bigEvent = 64 << 10
)

// worker decodes, de-duplicates and emits the events of one connection, in
// order, on its own goroutine: r3labs/sse hands each event from its reading
// goroutine to the subscriber's through an unbuffered channel, so doing the
// work in the handler would make the two wait on each other at every event
// (half the throughput on two cores, measured). While it runs the worker
// owns the feed's state (seen ids, Last-Event-ID, ended); finish hands it
// back.
type worker struct {
	f       *feed
	cancel  func()
	queue   chan workItem
	done    chan struct{}
	stopped atomic.Bool // the task ended: the reader drops what follows

	// results, read after finish
	progressed  bool
	serverError string
}

type workItem struct {
	msg  *sse.Event
	sync chan struct{} // closed once a big event is ingested
}

func (f *feed) startWorker(cancel func()) *worker {
	w := &worker{f: f, cancel: cancel, queue: make(chan workItem, workerQueue), done: make(chan struct{})}
	go w.run()
	return w
}

// push queues one event; it waits when the worker is behind, and for a big
// event until it is ingested (memory stays bounded).
func (w *worker) push(msg *sse.Event) {
	it := workItem{msg: msg}
	if len(msg.Data) > bigEvent {
		it.sync = make(chan struct{})
	}
	w.queue <- it
	if it.sync != nil {
		<-it.sync
	}
}

// finish waits until every queued event is ingested.
func (w *worker) finish() {
	close(w.queue)
	<-w.done
}

func (w *worker) run() {
	defer close(w.done)
	for it := range w.queue {
		w.ingest(it.msg)
		if it.sync != nil {
			close(it.sync)
		}
	}
}

func (w *worker) ingest(msg *sse.Event) {
	f := w.f
	if f.ended {
		return
	}
	fr := feedevent.Decode(string(msg.Event), msg.Data, f.opts)
	if fr.ServerError != "" {
		w.serverError = fr.ServerError
	}
	if f.deliver(fr, true) && fr.Event.Kind != model.KindSourceStatus && fr.Event.Kind != model.KindWarning {
		w.progressed = true // the task moved on (a greeting or an error frame does not count)
	}
	if len(msg.ID) > 0 && len(msg.ID) <= maxLastEventID && validHeaderValue(string(msg.ID)) {
		// A server that numbers its frames resumes from its own ids.
		f.lastID = string(msg.ID)
	}
	if f.ended {
		w.stopped.Store(true)
		w.cancel() // the task ended: stop reading
	}
}
