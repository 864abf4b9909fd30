package feed

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"toolscope/decoder/feedevent"
	"toolscope/model"
)

// historyHoldBytes bounds the history held back to be shown in time order
// (pages may come newest first). Past it, what is held is shown and the
// rest follows page by page as it arrives.
var historyHoldBytes int64 = 32 << 20 // a variable for tests

// maxHeldIDs bounds the ids remembered of held frames (they only tell
// whether a page brought anything new).
const maxHeldIDs = 1 << 14

// history is the backfill's state: frames held for ordering, and the ids
// they carry (for telling whether a page brought anything new).
type history struct {
	held      []feedevent.Frame
	heldBytes int64
	heldIDs   *model.SeenIDs
}

// backfill pages through the task's history and emits what it holds before
// the feed goes live. Each page is read as a stream (see histscan.go), each
// item up to MaxEventBytes (a larger one is skipped with a warning), and at
// most MaxHistoryPages pages are read.
func (f *feed) backfill(ctx context.Context) error {
	if f.t.history == "" {
		return fmt.Errorf("the history URL cannot be derived from %s (it does not end in /stream)", f.t.display)
	}
	h := &history{heldIDs: model.NewSeenIDs(maxHeldIDs)}
	defer f.showHistory(h)
	for page := 1; ; page++ {
		if page > f.cfg.MaxHistoryPages {
			f.warn(model.WarnHistoryTruncated, fmt.Sprintf("history of %s: stopped after %d pages (--max-history-pages); going live", f.t.historyDisplay, f.cfg.MaxHistoryPages))
			return nil
		}
		hasNext, fresh, err := f.historyPage(ctx, page, h)
		if err != nil {
			return err
		}
		// A server that ignores page= would send page 1 forever.
		if !hasNext || fresh == 0 || f.ended {
			return nil
		}
	}
}

// hold keeps one history frame until showHistory, showing what is held
// first when it grows past historyHoldBytes.
func (f *feed) hold(h *history, fr feedevent.Frame, size int) {
	if h.heldBytes+int64(size) > historyHoldBytes {
		f.showHistory(h)
	}
	h.held = append(h.held, fr)
	h.heldBytes += int64(size)
	if id := fr.Event.EventID; id != "" {
		h.heldIDs.Add(id)
	}
}

// showHistory emits the held frames in the order things happened.
func (f *feed) showHistory(h *history) {
	frames := h.held
	// Reversing newest-first pages first keeps events of equal timestamps in order.
	if n := len(frames); n > 1 && frames[0].Event.Time.After(frames[n-1].Event.Time) {
		slices.Reverse(frames)
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].Event.Time.Before(frames[j].Event.Time) })
	for _, fr := range frames {
		f.deliver(fr, false)
	}
	if len(h.held) > 0 {
		h.heldIDs = model.NewSeenIDs(maxHeldIDs)
	}
	h.held, h.heldBytes = nil, 0
}

// historyPage reads one page, holding its new events; fresh counts them.
func (f *feed) historyPage(ctx context.Context, page int, h *history) (hasNext bool, fresh int, err error) {
	u := f.t.history
	q := "page=" + strconv.Itoa(page) + "&page_size=" + strconv.Itoa(historyPageSize)
	if strings.Contains(u, "?") {
		u += "&" + q
	} else {
		u += "?" + q
	}
	where := f.t.historyDisplay + " (history page " + strconv.Itoa(page) + ")"
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	timer := time.AfterFunc(connectTimeout, func() { timedOut.Store(true); cancel() })
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Accept", "application/json")
	if f.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+f.cfg.APIKey)
	}
	resp, err := f.plain.Do(req)
	if err != nil {
		if timedOut.Load() {
			return false, 0, fmt.Errorf("%s: no answer within %s", where, connectTimeout)
		}
		return false, 0, f.redactURLErrorAs(err, f.t.historyDisplay)
	}
	timer.Stop()
	// The whole page must arrive within historyPageWait: a server that
	// trickles a page forever does not hold the feed back.
	timer = time.AfterFunc(historyPageWait, func() { timedOut.Store(true); cancel() })
	defer timer.Stop()
	if resp.StatusCode != http.StatusOK {
		return false, 0, newStatusError(where, resp)
	}
	defer resp.Body.Close()
	if note := redirectNote(resp, u); note != "" && page == 1 {
		f.status(model.StateConnecting, "history "+note)
	}
	hasNext, err = scanPage(resp.Body, f.cfg.MaxEventBytes, func(raw []byte, size int64) error {
		if raw == nil {
			f.warn(model.WarnHistoryEventTooLarge, fmt.Sprintf("%s: an event of %d bytes is over the %d-byte limit (--max-event-bytes): skipped", where, size, f.cfg.MaxEventBytes))
			return nil
		}
		fr := feedevent.DecodeHistory(raw, f.opts)
		if id := fr.Event.EventID; id != "" && (f.seen.Has(id) || h.heldIDs.Has(id)) {
			return nil
		}
		fresh++
		f.hold(h, fr, len(raw))
		return nil
	})
	if err != nil {
		if timedOut.Load() {
			err = fmt.Errorf("not read within %s", historyPageWait)
		}
		return false, fresh, fmt.Errorf("history page %d: %v", page, err)
	}
	return hasNext, fresh, nil
}
