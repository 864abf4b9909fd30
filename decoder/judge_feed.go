package decoder

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"toolscope/decoder/token"
	"toolscope/model"
)

// maxGapCalls bounds the calls whose last relayed progress is remembered.
const maxGapCalls = 4096

// Feed judges one event a task feed relayed, its time the platform's when
// timestamped: the relay rule on progress, a retry's arguments (an
// idempotency key sent again with other arguments), a result against the
// platform's limits (text offloaded, structured content over the limit yet
// relayed, each image's type, size and count: it sets the event's Offloaded
// and each image's Problem). It returns the warnings about the call.
func (j *Judge) Feed(ev *model.Event, timestamped bool) []model.Warning {
	var ws []model.Warning
	switch ev.Kind {
	case model.KindToolCall:
		if ev.IdempotencyKey != "" {
			ws = j.cross.check(crossCall{what: "event", id: ev.EventID, idemKey: ev.IdempotencyKey, arguments: ev.Arguments})
		}
	case model.KindToolResult:
		ws = feedResult(ev)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if w, ok := j.gaps.check(ev, timestamped, j.RelayInterval); ok {
		ws = append(ws, w)
	}
	return ws
}

// feedResult judges a relayed result against the platform's limits.
func feedResult(ev *model.Event) []model.Warning {
	var ws []model.Warning
	ev.Offloaded = ev.TextChars > model.MaxTextChars
	for i := range ev.Images {
		im := &ev.Images[i]
		var problems []string
		if !supportedImageTypes[strings.ToLower(strings.TrimSpace(im.MimeType))] {
			problems = append(problems, "type not supported")
		}
		if im.Size > model.MaxImageBytes {
			problems = append(problems, "over 5 MB")
		}
		if i >= model.MaxImages {
			problems = append(problems, fmt.Sprintf("over the limit of %d images", model.MaxImages))
		}
		im.Problem = strings.Join(problems, "; ")
	}
	if sc := ev.StructuredContent; !ev.StructuredContentDropped && ev.StructuredContentBytes > model.MaxStructuredChars {
		n := ev.StructuredContentBytes // past what the event keeps, its size alone is known
		if sc != nil {
			n = utf8.RuneCount(compactJSON(sc))
		}
		if n > model.MaxStructuredChars {
			ws = append(ws, model.Warning{Code: model.WarnStructuredContentNotDropped, Message: fmt.Sprintf(
				"structured_content is %d characters of JSON but was relayed: over %d the platform leaves it out (structured_content_dropped)", n, model.MaxStructuredChars)})
		}
	}
	return ws
}

// relayGaps checks the platform's relay rule on a feed alone: at most one
// tool.progress per 0.5 s per call, a completion (progress >= total) always
// relayed. It remembers the last relayed time of each running call; a call
// is forgotten at its result, and the oldest past maxGapCalls.
type relayGaps struct {
	last  map[string]time.Time
	order []string
}

func (g *relayGaps) check(ev *model.Event, timestamped bool, every time.Duration) (model.Warning, bool) {
	switch ev.Kind {
	case model.KindToolResult, model.KindToolCancelled, model.KindToolProgress:
	default:
		return model.Warning{}, false // no key built for events the rule ignores
	}
	key := ev.TaskID + "\x00" + ev.ToolCallID
	if len(key) > 128 {
		sum := sha256.Sum256([]byte(key)) // a hostile feed's long ids stay small here
		key = string(sum[:])
	}
	if ev.Kind != model.KindToolProgress {
		delete(g.last, key)
		return model.Warning{}, false
	}
	if !timestamped || ev.ToolCallID == "" {
		return model.Warning{}, false // receipt times say nothing of the platform's pace
	}
	prev, seen := g.last[key]
	g.remember(key, ev.Time)
	complete := ev.Total != nil && ev.Progress >= *ev.Total
	gap := ev.Time.Sub(prev)
	if every <= 0 {
		every = model.RelayInterval
	}
	// Whole-second timestamps cannot tell 0.6 s from 0 s: only timestamps
	// with a fraction are judged.
	precise := prev.Nanosecond() != 0 && ev.Time.Nanosecond() != 0
	if !seen || complete || !precise || gap < 0 || gap >= every {
		return model.Warning{}, false
	}
	return model.Warning{Code: model.WarnProgressRelayedTooSoon,
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
