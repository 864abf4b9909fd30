package model

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// apply folds one call event into the call. The store has already made the
// call mutable.
func (c *Call) apply(ev *Event) {
	c.Events++
	if ev.Time.After(c.LastUpdate) {
		c.LastUpdate = ev.Time
	}
	if c.FirstSeen.IsZero() || (!ev.Time.IsZero() && ev.Time.Before(c.FirstSeen)) {
		c.FirstSeen = ev.Time
	}
	c.fillIdentity(ev)
	c.addSource(ev.SourceName)
	if ev.Source == SourceFeed {
		c.SeenByFeed, c.Relays = true, true
	}

	if ev.Kind == KindToolProgress {
		c.applyProgress(ev)
		return // progress is kept in the point history, not the timeline
	}
	k := keep(ev)
	switch ev.Kind {
	case KindToolCall:
		c.applyCallEvent(&k)
	case KindToolResult:
		if ev.ResultType == ResultInputRequired && !ev.IsError {
			c.applyInputRequired(&k.ev)
		} else {
			c.applyResult(&k.ev)
		}
	case KindToolCancelled:
		a := c.attemptFor(ev)
		a.Cancelled = ev.Reason
		if a.Cancelled == "" {
			a.Cancelled = "cancelled"
		}
		if a.Ended.IsZero() {
			a.Ended = ev.Time
		}
	case KindWarning:
		c.Flags |= FlagWarning | warningFlag(ev.Code)
		if len(c.Warnings) < maxWarnings {
			c.Warnings = append(c.Warnings, *ev)
		}
	}
	c.appendTimeline(&k)
	c.updateStatus()
}

func (c *Call) fillIdentity(ev *Event) {
	if c.TaskID == "" {
		c.TaskID = ev.TaskID
	}
	if c.ToolCallID == "" {
		c.ToolCallID = ev.ToolCallID
	}
	if c.IdempotencyKey == "" {
		c.IdempotencyKey = ev.IdempotencyKey
	}
	if c.RequestID == "" {
		c.RequestID = ev.RequestID
	}
	if ev.Tool != "" {
		// A tap sees the server's raw name, a feed the agent-facing one:
		// keep the raw one as Tool and the qualified one as AgentName.
		if HasAgentPrefix(ev.Tool) && ev.Source != SourceTap {
			if c.AgentName == "" {
				c.AgentName = ev.Tool
			}
			if c.Tool == "" {
				c.Tool = ev.Tool
			}
		} else if c.Tool == "" || (ev.Source == SourceTap && c.Tool == c.AgentName) {
			c.Tool = ev.Tool
		}
	}
	if ev.AgentName != "" {
		c.AgentName = ev.AgentName
	}
	if ev.TimeoutMS > 0 {
		c.TimeoutMS = ev.TimeoutMS
	}
}

func (c *Call) addSource(name string) {
	for _, s := range c.Sources {
		if s == name {
			return
		}
	}
	c.Sources = append(c.Sources, name)
}

func (c *Call) applyCallEvent(k *keptEvent) {
	ev := &k.ev
	a := c.attemptFor(ev)
	if ev.Round > 1 {
		c.applyRoundCall(a, ev)
	} else if a.Started.IsZero() || ev.Time.Before(a.Started) {
		a.Started = ev.Time
	}
	if ev.Source != SourceTap {
		a.FeedCall = true
	}
	if ev.RequestID != "" && ev.Round < 2 {
		a.RequestID = ev.RequestID
	}
	if c.Started.IsZero() || ev.Time.Before(c.Started) {
		c.Started = ev.Time
	}
	if len(ev.Arguments) > 0 {
		c.Arguments = ev.Arguments
	}
	if k.meta != "" {
		c.meta = k.meta
	}
	if len(ev.SoatContext) > 0 {
		c.SoatContext = ev.SoatContext
	}
	if k.headers != "" {
		c.headers = k.headers
	}
	if ev.Context != nil {
		a.Context = ev.Context
		// The call shows the verdict of its latest attempt with a token.
		if c.Context == nil || a.N >= c.latestContextAttempt() {
			c.Context = ev.Context
		}
	}
	if len(c.Attempts) > 1 {
		c.Flags |= FlagRetried
	}
}

func (c *Call) latestContextAttempt() int {
	n := 0
	for _, a := range c.Attempts {
		if a.Context != nil && a.N > n {
			n = a.N
		}
	}
	return n
}

func (c *Call) applyProgress(ev *Event) {
	p := &c.Progress
	fromTap := ev.Source == SourceTap
	last := &p.lastFed
	if fromTap {
		p.Sent++
		if ev.Relayed != nil {
			c.Relays = true
		}
		if ev.IsRelayed() {
			p.WouldRelay++
		}
		if ev.AfterCancel {
			p.AfterCancel++
		}
		last = &p.lastTap
	} else {
		p.Relayed++
	}
	count := p.Relayed
	if fromTap {
		count = p.Sent
	}
	if count > 1 && ev.Progress <= *last {
		p.NotIncreasing++
	}
	*last = ev.Progress
	if !ev.Time.Before(p.LastAt) {
		p.Progress = ev.Progress
		if ev.Total != nil {
			p.Total, p.HasTotal = *ev.Total, true
		}
		if ev.Message != "" {
			p.Message = ev.Message
		}
		p.LastAt = ev.Time
	}
	pt := Point{UnixNano: ev.Time.UnixNano(), Progress: ev.Progress, Relayed: ev.IsRelayed() || !fromTap, FromTap: fromTap,
		AfterCancel: ev.AfterCancel, Message: ev.Message}
	if ev.Total != nil {
		pt.Total, pt.HasTotal = *ev.Total, true
	}
	p.addPoint(pt)
	if c.Status == StatusRunning || c.LastAttempt() == nil {
		c.updateStatus()
	}
}

func (c *Call) applyResult(ev *Event) {
	a := c.attemptFor(ev)
	r := &a.Result
	if !a.HasResult || ev.Time.Before(r.Time) {
		r.Time = ev.Time
	}
	a.HasResult = true
	if a.Ended.IsZero() || ev.Time.After(a.Ended) {
		a.Ended = ev.Time
	}
	a.endRound(ev)
	r.IsError = r.IsError || ev.IsError
	setString(&r.Error, ev.Error)
	r.Replayed = r.Replayed || ev.Replayed
	setInt64(&r.DurationMS, ev.DurationMS)
	setInt(&r.HTTPStatus, ev.HTTPStatus)
	setInt(&r.RPCCode, ev.RPCCode)
	setInt(&r.TextChars, ev.TextChars)
	setString(&r.TextPreview, ev.TextPreview)
	r.Offloaded = r.Offloaded || ev.Offloaded
	if len(ev.Images) > 0 {
		r.Images = ev.Images
	}
	if len(ev.StructuredContent) > 0 {
		r.StructuredContent = ev.StructuredContent
	}
	setInt(&r.StructuredContentBytes, ev.StructuredContentBytes)
	r.StructuredContentDropped = r.StructuredContentDropped || ev.StructuredContentDropped
	r.Late = r.Late || ev.Late
	setString(&r.ResultType, ev.ResultType)
	setString(&r.Denied, ev.Denied)
	if ev.TimedOut && a.Cancelled == "" {
		a.Cancelled = ev.Error // the platform gave up: a cancellation, with its words
	}

	if r.Replayed {
		c.Flags |= FlagReplayed
	}
	if len(r.Images) > 0 {
		c.Flags |= FlagImages
		for _, im := range r.Images {
			if im.Problem != "" {
				c.Flags |= FlagLimit
			}
		}
	}
	if r.StructuredContentBytes > 0 || len(r.StructuredContent) > 0 {
		c.Flags |= FlagStructured
	}
	if r.StructuredContentDropped {
		c.Flags |= FlagStructuredDropped
	}
	if r.Offloaded {
		c.Flags |= FlagOffloaded
	}
	if r.Late {
		c.Flags |= FlagLate
	}
	if r.HTTPStatus == 401 || r.HTTPStatus == 403 {
		c.Flags |= FlagRejected
	}
}

func setString(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func setInt(dst *int, v int) {
	if v != 0 {
		*dst = v
	}
}

func setInt64(dst *int64, v int64) {
	if v != 0 {
		*dst = v
	}
}

// attemptFor finds or makes the attempt an event belongs to:
//   - a tap's exchange is one attempt; a new exchange for the same call is the
//     next attempt (same idempotency key seen again);
//   - an explicit `attempt` number wins;
//   - a feed's tool.call without one is the next attempt the feed has not
//     announced yet; a feed's result without one is attempt 1 (the contract
//     leaves `attempt` out on a first call); anything else joins the latest.
func (c *Call) attemptFor(ev *Event) *Attempt {
	if ev.Exchange != "" {
		for i := range c.Attempts {
			a := &c.Attempts[i]
			if a.Exchange == ev.Exchange && a.SourceName == ev.SourceName {
				return a
			}
		}
		n := ev.Attempt
		if n == 0 {
			n = c.makeRoomForExchange(ev.Time)
		}
		a := c.attemptN(n)
		if a.Exchange == "" {
			a.Exchange, a.SourceName = ev.Exchange, ev.SourceName
		}
		if a.Started.IsZero() {
			a.Started = ev.Time
		}
		return a
	}
	n := ev.Attempt
	if n == 0 {
		switch ev.Kind {
		case KindToolCall:
			n = 1
			for _, a := range c.Attempts {
				if a.FeedCall && a.N >= n {
					n = a.N + 1
				}
			}
		case KindToolResult:
			n = 1
		default:
			n = max(len(c.Attempts), 1)
			if len(c.Attempts) > 0 {
				n = c.Attempts[len(c.Attempts)-1].N
			}
		}
	}
	return c.attemptN(n)
}

// makeRoomForExchange numbers a new exchange of the same call by when its
// request reached the wire: a tap parses exchanges side by side, so the
// second request's events can be applied before the first one's. Exchanges
// that started later move up one. It returns the new exchange's number.
func (c *Call) makeRoomForExchange(started time.Time) int {
	n := 1
	for _, a := range c.Attempts {
		if a.Exchange != "" && !started.Before(a.Started) && a.N >= n {
			n = a.N + 1
		}
	}
	moved := false
	for i := range c.Attempts {
		if a := &c.Attempts[i]; a.Exchange != "" && started.Before(a.Started) && a.N >= n && a.N < MaxAttempts {
			a.N++
			moved = true
		}
	}
	if moved {
		sort.Slice(c.Attempts, func(i, j int) bool { return c.Attempts[i].N < c.Attempts[j].N })
	}
	return n
}

// attemptN returns attempt n, creating it (and keeping attempts sorted).
func (c *Call) attemptN(n int) *Attempt {
	if n < 1 {
		n = 1
	}
	if n > MaxAttempts {
		n = MaxAttempts
	}
	// Attempts are sorted by number: insert in place (sort.Slice would
	// allocate for every new call).
	at := len(c.Attempts)
	for i := range c.Attempts {
		if c.Attempts[i].N == n {
			return &c.Attempts[i]
		}
		if c.Attempts[i].N > n {
			at = i
			break
		}
	}
	c.Attempts = slices.Insert(c.Attempts, at, Attempt{N: n})
	if len(c.Attempts) > 1 {
		c.Flags |= FlagRetried
	}
	return &c.Attempts[at]
}

// updateStatus derives the call's status from its latest attempt.
func (c *Call) updateStatus() {
	a := c.LastAttempt()
	switch {
	case a == nil:
		c.Status = StatusRunning
	case a.HasResult && a.Result.Late:
		c.Status = StatusLate
	case a.Cancelled != "" && (!a.HasResult || failed(&a.Result)):
		// A timeout is both a cancellation (the tap) and a failed result
		// (the feed); cancelled says more.
		c.Status = StatusCancelled
	case a.HasResult && failed(&a.Result):
		c.Status = StatusError
	case a.HasResult:
		c.Status = StatusOK
	case a.waitsForInput():
		c.Status = StatusNeedsInput
	default:
		c.Status = StatusRunning
	}
	if !c.Finished() {
		c.Ended = time.Time{}
	} else {
		c.Ended = a.Ended
	}
	if c.Context != nil && c.Context.Verdict == VerdictRejected {
		c.Flags |= FlagRejected
	}
}

func failed(r *Result) bool {
	return r.IsError || r.Error != "" || r.RPCCode != 0 || r.HTTPStatus >= 400
}

func (c *Call) appendTimeline(k *keptEvent) {
	if len(c.timeline) >= maxTimeline {
		// Keep the first half (how it started) and the most recent events,
		// in a new array: a snapshot may hold the old one.
		n := make([]timelineEvent, 0, maxTimeline)
		n = append(n, c.timeline[:maxTimeline/2]...)
		n = append(n, c.timeline[len(c.timeline)-maxTimeline/4:]...)
		c.timeline = n
	}
	if c.timeline == nil {
		// A call and its result from a tap and a feed: four events, one
		// allocation (two for a store that has seen taps alone).
		c.timeline = make([]timelineEvent, 0, cmp.Or(int(c.firstTimeline), 4))
	}
	c.timeline = append(c.timeline, timelineEvent{k.ev, k.meta, k.headers})
}
