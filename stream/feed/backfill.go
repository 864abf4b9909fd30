package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"toolscope/decoder"
)

// historyPage is one answer of the history endpoint.
type historyPage struct {
	Events   []json.RawMessage `json:"events"`
	Total    int               `json:"total"`
	Page     int               `json:"page"`
	PageSize int               `json:"page_size"`
	HasNext  bool              `json:"has_next"`
}

// backfill pages through the task's history and emits what it holds, oldest
// first, before the feed goes live.
func (f *feed) backfill(ctx context.Context) error {
	if f.t.history == "" {
		return fmt.Errorf("the history URL cannot be derived from %s (it does not end in /stream)", f.t.display)
	}
	var frames []decoder.FeedFrame
	ids := make(map[string]struct{})
	for page := 1; page <= maxHistoryPages; page++ {
		p, err := f.historyPage(ctx, page)
		if err != nil {
			return err
		}
		fresh := 0
		for _, item := range p.Events {
			fr := decoder.DecodeHistoryEvent(item, f.opts)
			if id := fr.Event.EventID; id != "" {
				if _, dup := ids[id]; dup {
					continue
				}
				ids[id] = struct{}{}
			}
			fresh++
			frames = append(frames, fr)
		}
		// A server that ignores page= would send page 1 forever.
		if !p.HasNext || fresh == 0 {
			break
		}
	}
	// Pages may come newest first; the screen wants the order things
	// happened. Reversing first keeps events of equal timestamps in order.
	if n := len(frames); n > 1 && frames[0].Event.Time.After(frames[n-1].Event.Time) {
		slices.Reverse(frames)
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].Event.Time.Before(frames[j].Event.Time) })
	for _, fr := range frames {
		f.deliver(fr, false)
	}
	return nil
}

func (f *feed) historyPage(ctx context.Context, page int) (historyPage, error) {
	var p historyPage
	u := f.t.history
	q := "page=" + strconv.Itoa(page) + "&page_size=" + strconv.Itoa(historyPageSize)
	if strings.Contains(u, "?") {
		u += "&" + q
	} else {
		u += "?" + q
	}
	rctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return p, err
	}
	req.Header.Set("Accept", "application/json")
	if f.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+f.cfg.APIKey)
	}
	resp, err := f.plain.Do(req)
	if err != nil {
		return p, f.redactURLError(err)
	}
	if resp.StatusCode != http.StatusOK {
		return p, newStatusError(f.t.display+" (history page "+strconv.Itoa(page)+")", resp)
	}
	defer resp.Body.Close()
	limit := int64(historyPageSize)*int64(f.cfg.MaxEventBytes) + 1<<20
	if err := json.NewDecoder(io.LimitReader(resp.Body, limit)).Decode(&p); err != nil {
		return p, fmt.Errorf("history page %d: %v", page, err)
	}
	return p, nil
}
