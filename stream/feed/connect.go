package feed

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/r3labs/sse/v2"

	"toolscope/model"
)

// attempt is what one connection achieved.
type attempt struct {
	err         error
	connected   bool
	progressed  bool // new events arrived, or the connection lasted: backoff starts over
	truncated   bool // the connection broke inside a frame
	serverError string
	timedOut    bool
}

// reason is the last error a reconnecting status shows.
func (a attempt) reason() error {
	switch {
	case a.timedOut:
		return fmt.Errorf("no answer within %s", connectTimeout)
	case a.serverError != "" && (a.err == nil || a.truncated):
		return fmt.Errorf("server error: %s", a.serverError)
	case a.truncated && a.err == nil:
		return errors.New("the connection closed in the middle of an event")
	case a.err != nil:
		return a.err
	case !a.connected:
		return errors.New("no connection")
	}
	return errors.New("the server closed the stream")
}

// connect makes one connection with r3labs/sse and reads it until it ends.
//
// The library is configured for this job: SubscribeRawWithContext sends the
// URL as given (no ?stream= query); ClientMaxBufferSize lifts its 64 KiB
// event limit; ReconnectStrategy noRetry turns its endless silent retry into
// one attempt, so this package's loop owns backoff, Last-Event-ID (the feed
// has no id: lines, so the header is set from the JSON event_id) and the
// decision that a 401 is final; ResponseValidator keeps the HTTP status
// (the default validator reduces it to a string); Connection carries the
// frame guard (see guard.go).
func (f *feed) connect(ctx context.Context) (res attempt) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	timer := time.AfterFunc(connectTimeout, func() {
		timedOut.Store(true)
		cancel()
	})
	defer timer.Stop()

	c := sse.NewClient(f.t.stream, sse.ClientMaxBufferSize(f.cfg.MaxEventBytes+frameSlack))
	c.Connection = f.client
	c.ReconnectStrategy = noRetry{}
	if f.cfg.APIKey != "" {
		c.Headers["Authorization"] = "Bearer " + f.cfg.APIKey
	}
	if f.lastID != "" {
		c.Headers["Last-Event-ID"] = f.lastID
	}
	c.ResponseValidator = func(_ *sse.Client, resp *http.Response) error {
		if !timer.Stop() {
			resp.Body.Close()
			return context.DeadlineExceeded
		}
		if resp.StatusCode != http.StatusOK {
			se := newStatusError(f.t.display, resp)
			if f.cfg.APIKey != "" { // a server that echoes the request must not show the key
				se.Body = strings.ReplaceAll(se.Body, f.cfg.APIKey, model.Redacted)
			}
			return se
		}
		if ct := resp.Header.Get("Content-Type"); ct != "" {
			if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
				resp.Body.Close()
				return notEventStream{contentType: ct}
			}
		}
		res.connected = true
		detail := "HTTP 200"
		if note := redirectNote(resp, f.t.stream); note != "" {
			detail += " (" + note + ")"
		}
		if f.lastID != "" {
			detail += ", resuming after " + f.lastID
		}
		f.status(model.StateConnected, detail)
		return nil
	}
	// Decoding and storing run on their own goroutine, so reading the
	// socket (the library's two goroutines) and ingest overlap on two cores.
	w := f.startWorker(cancel)
	start := time.Now()
	res.err = c.SubscribeRawWithContext(actx, func(msg *sse.Event) {
		if w.stopped.Load() {
			return
		}
		if string(msg.Event) == truncatedEvent {
			res.truncated = true
			return
		}
		w.push(msg)
	})
	w.finish()
	res.progressed, res.serverError = w.progressed, w.serverError
	res.err = f.redactURLError(res.err)
	res.timedOut = timedOut.Load()
	if res.connected && time.Since(start) > time.Minute {
		res.progressed = true // a long, quiet connection (the 30-minute cut)
	}
	if ctx.Err() != nil || f.ended {
		res.err = nil
	}
	return res
}

// redactURLError names the feed by its display URL in a transport error
// (net/http quotes the full URL, query credentials included).
func (f *feed) redactURLError(err error) error { return f.redactURLErrorAs(err, f.t.display) }

// redactURLErrorAs names the URL by display.
func (f *feed) redactURLErrorAs(err error, display string) error {
	if re, ok := asRedirectError(err); ok {
		return re // it names both URLs, redacted
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, display, ue.Err)
	}
	return err
}
