package feed

import (
	"crypto/sha256"
	"fmt"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/token"
	"toolscope/model"
)

// maxGapCalls bounds the calls whose last relayed progress is remembered.
const maxGapCalls = 4096

// relayGaps checks the platform's relay rule on a feed alone: at most one
// tool.progress per 0.5 s per call, a completion (progress >= total) always
// relayed. It remembers the last relayed time of each running call; a call
// is forgotten at its result, and the oldest past maxGapCalls.
type relayGaps struct {
	every time.Duration // the rule's interval (0: decoder.RelayInterval)
	last  map[string]time.Time
	order []string
}

func (g *relayGaps) check(ev *model.Event, timestamped bool) (model.Event, bool) {
	switch ev.Kind {
	case model.KindToolResult, model.KindToolCancelled, model.KindToolProgress:
	default:
		return model.Event{}, false // no key built for events the rule ignores
	}
	key := ev.TaskID + "\x00" + ev.ToolCallID
	if len(key) > 128 {
		sum := sha256.Sum256([]byte(key)) // a hostile feed's long ids stay small here
		key = string(sum[:])
	}
	if ev.Kind != model.KindToolProgress {
		delete(g.last, key)
		return model.Event{}, false
	}
	if !timestamped || ev.ToolCallID == "" {
		return model.Event{}, false // receipt times say nothing of the platform's pace
	}
	prev, seen := g.last[key]
	g.remember(key, ev.Time)
	complete := ev.Total != nil && ev.Progress >= *ev.Total
	gap, every := ev.Time.Sub(prev), g.every
	if every <= 0 {
		every = decoder.RelayInterval
	}
	// Whole-second timestamps cannot tell 0.6 s from 0 s: only timestamps
	// with a fraction are judged.
	precise := prev.Nanosecond() != 0 && ev.Time.Nanosecond() != 0
	if !seen || complete || !precise || gap < 0 || gap >= every {
		return model.Event{}, false
	}
	return model.Event{Time: ev.Time, Source: ev.Source, SourceName: ev.SourceName, Kind: model.KindWarning,
		TaskID: ev.TaskID, ToolCallID: ev.ToolCallID, Tool: ev.Tool, IdempotencyKey: ev.IdempotencyKey,
		Code: string(model.WarnProgressRelayedTooSoon),
		Message: fmt.Sprintf("tool.progress relayed %s after the previous one; the platform relays at most one per %s (a completion excepted)",
			token.HumanDuration(gap), token.HumanDuration(every))}, true
}

func (g *relayGaps) remember(key string, at time.Time) {
	if g.last == nil {
		g.last = make(map[string]time.Time)
	}
	if _, ok := g.last[key]; !ok {
		if len(g.last) >= maxGapCalls {
			// Forget the oldest still remembered (some have ended already).
			for len(g.order) > 0 {
				old := g.order[0]
				g.order = g.order[1:]
				if _, ok := g.last[old]; ok {
					delete(g.last, old)
					break
				}
			}
		}
		g.order = append(g.order, key)
		if len(g.order) > 2*maxGapCalls {
			g.order = compactKeys(g.order, g.last)
		}
	}
	g.last[key] = at
}

// compactKeys drops the keys no longer remembered, keeping the order.
func compactKeys(order []string, live map[string]time.Time) []string {
	out := make([]string, 0, len(live))
	for _, k := range order {
		if _, ok := live[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
