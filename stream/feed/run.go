package feed

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"toolscope/decoder"
	"toolscope/decoder/feedevent"
	"toolscope/model"
)

// Run watches one task feed until the task ends (nil), the source fails
// (an error: a 401, 403 or 404, an event over MaxEventBytes), or ctx is
// cancelled (ctx.Err()). Every event goes to sink; the source's own state
// (connecting, connected, reconnecting, ended, failed) does too.
func Run(ctx context.Context, cfg Config, sink model.Sink) error {
	t, err := resolve(cfg)
	if err == nil && !validHeaderValue(cfg.APIKey) {
		err = fmt.Errorf("feed %s: the API key holds a control character or a line break", t.display)
	}
	if err != nil {
		name := cfg.Name
		if name == "" {
			name = "feed"
		}
		sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceFeed, SourceName: name,
			Kind: model.KindSourceStatus, State: model.StateFailed, Detail: err.Error()})
		return err
	}
	return newFeed(cfg, t, sink).run(ctx)
}

// feed is the state of one running feed. Run's goroutine owns it, except
// while a connection's worker runs (see worker.go).
type feed struct {
	cfg    Config
	t      target
	sink   model.Sink
	client *http.Client // for the stream: no timeout, frames guarded
	plain  *http.Client // for the history endpoint
	opts   feedevent.Options
	seen   *model.SeenIDs
	lastID string // sent as Last-Event-ID on reconnect

	ended   bool
	endType string
	judge   *decoder.Judge // the contract's rules on what the feed relays, across events
}

func newFeed(cfg Config, t target, sink model.Sink) *feed {
	if cfg.MaxEventBytes <= 0 {
		cfg.MaxEventBytes = defaultMaxEventBytes
	}
	if cfg.MaxHistoryPages <= 0 {
		cfg.MaxHistoryPages = DefaultMaxHistoryPages
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = defaultMaxBackoff
	}
	given := cfg.HTTPClient
	if given == nil {
		given = &http.Client{}
	}
	plain := withRedirectRule(given, cfg.APIKey != "")
	stream := *plain
	stream.Timeout = 0 // the stream is long-lived; connectTimeout bounds the answer
	base := stream.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	stream.Transport = guardTransport{base: base, limit: cfg.MaxEventBytes + frameSlack}
	return &feed{
		cfg: cfg, t: t, sink: sink, client: &stream, plain: plain,
		opts:  feedevent.Options{SourceName: t.name, TaskID: t.taskID},
		seen:  model.NewSeenIDs(maxSeenIDs),
		judge: &decoder.Judge{RelayInterval: cfg.RelayInterval},
	}
}

func (f *feed) run(ctx context.Context) error {
	f.status(model.StateConnecting, fmt.Sprintf("%s (waiting up to %s for an answer)", f.t.display, connectTimeout))
	if f.cfg.Backfill {
		if err := f.backfill(ctx); err != nil && ctx.Err() == nil {
			f.warn(model.WarnBackfillFailed, fmt.Sprintf("history not read: %v (going live)", outOfFiles(err)))
		}
		if f.ended {
			f.status(model.StateEnded, "task ended: "+f.endType)
			return nil
		}
	}
	failures := 0
	var lastErr error
	failingSince := time.Now()
	for {
		if failures > 0 {
			d := backoffDelay(failures, f.cfg.MaxBackoff)
			var se *statusError
			if errors.As(lastErr, &se) && se.RetryAfter > d {
				d = min(se.RetryAfter, maxRetryAfter) // the server asked for a pause
			}
			detail := fmt.Sprintf("attempt %d in %s: %v", failures, d.Round(time.Millisecond), lastErr)
			if limit := f.cfg.GiveUpAfter; limit > 0 {
				left := limit - time.Since(failingSince)
				if left <= 0 {
					err := fmt.Errorf("feed %s: gave up after %s of failing to connect (--give-up-after): %w", f.t.display, limit, lastErr)
					f.status(model.StateFailed, err.Error())
					return err
				}
				d = min(d, left) // one last attempt at the limit
				detail = fmt.Sprintf("attempt %d in %s, giving up in %s (--give-up-after): %v", failures, d.Round(time.Millisecond),
					left.Round(time.Second), lastErr)
			}
			f.status(model.StateReconnecting, detail)
			if model.Sleep(ctx, d) != nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
		res := f.connect(ctx)
		if f.ended {
			f.status(model.StateEnded, "task ended: "+f.endType)
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		var se *statusError
		if errors.As(res.err, &se) && se.Status == http.StatusNoContent {
			// SSE's "stop reconnecting": the server has nothing more to send.
			f.status(model.StateEnded, "the server answered 204 No Content: no more events")
			return nil
		}
		if err := fatal(res.err, f.cfg.MaxEventBytes); err != nil {
			f.status(model.StateFailed, err.Error())
			return err
		}
		if res.progressed {
			failures = 0
			failingSince = time.Now()
		}
		failures++
		lastErr = outOfFiles(res.reason())
	}
	f.status(model.StateEnded, "stopped")
	return ctx.Err()
}

// fatal returns the error that ends the source, or nil when err is retried.
func fatal(err error, maxEventBytes int) error {
	var se *statusError
	if errors.As(err, &se) && se.Fatal() {
		return se
	}
	if re, ok := asRedirectError(err); ok {
		return re // the same redirect would come again
	}
	if errors.Is(err, bufio.ErrTooLong) {
		// Retrying would replay the same event and fail on it again.
		return fmt.Errorf("an event is larger than the %d-byte limit (raise --max-event-bytes): %w", maxEventBytes, err)
	}
	return nil
}

// deliver de-duplicates one decoded frame and emits it. live frames move the
// Last-Event-ID; history items do not (the first live connection then
// replays from the start, and de-duplication drops what was seen).
func (f *feed) deliver(fr feedevent.Frame, live bool) (fresh bool) {
	if f.ended {
		return false // nothing follows a task's end
	}
	ev := &fr.Event
	if ev.Kind == "" && len(fr.Warnings) == 0 {
		return false
	}
	if ev.EventID != "" {
		if !f.seen.Add(ev.EventID) {
			return false
		}
		if live && validHeaderValue(ev.EventID) && len(ev.EventID) <= maxLastEventID {
			f.lastID = ev.EventID
		}
		ev.EventID = shortEventID(ev.EventID)
	}
	judged := f.judge.Feed(ev, fr.Timestamped)
	if ev.Kind != "" {
		f.sink.Emit(*ev)
	}
	for _, w := range fr.Warnings {
		f.sink.Emit(w)
	}
	for _, w := range judged {
		// On the call it concerns.
		f.sink.Emit(model.Event{Time: ev.Time, Source: ev.Source, SourceName: ev.SourceName, Kind: model.KindWarning,
			TaskID: ev.TaskID, ToolCallID: ev.ToolCallID, Tool: ev.Tool, IdempotencyKey: ev.IdempotencyKey,
			Code: string(w.Code), Message: w.Message})
	}
	if fr.Terminal {
		f.ended = true
		f.endType = ev.EventType
	}
	return true
}

func (f *feed) status(state, detail string) {
	f.sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceFeed, SourceName: f.t.name,
		Kind: model.KindSourceStatus, TaskID: f.t.taskID, State: state, Detail: detail})
}

func (f *feed) warn(code model.WarningCode, msg string) {
	f.sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceFeed, SourceName: f.t.name,
		Kind: model.KindWarning, Code: string(code), Message: msg})
}

// validHeaderValue says whether s can be sent as a header value as is (an
// id with a line break from a hostile server must not break the request).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// shortEventID is the id an event keeps once de-duplicated: a hostile
// feed's megabyte-long id would otherwise stay in memory with every event
// kept (the store's recent events, a call's timeline). A long id is cut,
// its length and a digest of it kept, so two long ids stay apart.
func shortEventID(id string) string {
	if len(id) <= maxLastEventID {
		return id
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	sum := sha256.Sum256([]byte(id))
	return id[:cut] + "…[" + strconv.Itoa(len(id)) + " bytes, sha256 " + hex.EncodeToString(sum[:8]) + "]"
}
