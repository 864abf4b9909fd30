package model

import "sort"

// absorb folds another view of the same call into this one (two records an
// event showed to be one call: a feed's and a tap's, say).
func (c *Call) absorb(o *Call) {
	ev := Event{TaskID: o.TaskID, ToolCallID: o.ToolCallID, IdempotencyKey: o.IdempotencyKey,
		RequestID: o.RequestID, Tool: o.Tool, AgentName: o.AgentName, TimeoutMS: o.TimeoutMS}
	c.fillIdentity(&ev)
	c.absorbSeen(o)
	for i := range o.Attempts {
		c.attemptN(o.Attempts[i].N).absorb(&o.Attempts[i])
	}
	c.Progress.absorb(&o.Progress)
	c.absorbTimeline(o.timeline)
	if len(o.Warnings) > 0 {
		c.Warnings = append(c.Warnings[:len(c.Warnings):len(c.Warnings)], o.Warnings...)
	}
	c.Events += o.Events
	c.Flags |= o.Flags
	c.updateStatus()
}

// absorbSeen takes the other view's sources, the earliest start and latest
// update, and what this view lacks of the call's request.
func (c *Call) absorbSeen(o *Call) {
	for _, s := range o.Sources {
		c.addSource(s)
	}
	c.SeenByFeed = c.SeenByFeed || o.SeenByFeed
	if o.FirstSeen.Before(c.FirstSeen) {
		c.FirstSeen = o.FirstSeen
	}
	if c.Started.IsZero() || (!o.Started.IsZero() && o.Started.Before(c.Started)) {
		c.Started = o.Started
	}
	if o.LastUpdate.After(c.LastUpdate) {
		c.LastUpdate = o.LastUpdate
	}
	if c.Arguments == nil {
		c.Arguments = o.Arguments
	}
	if c.meta == "" {
		c.meta = o.meta
	}
	if c.Context == nil {
		c.Context = o.Context
	}
	if c.SoatContext == nil {
		c.SoatContext = o.SoatContext
	}
	if c.headers == "" {
		c.headers = o.headers
	}
}

// absorb folds the other view's attempt of the same number into a.
func (a *Attempt) absorb(oa *Attempt) {
	if a.Exchange == "" {
		a.Exchange, a.SourceName = oa.Exchange, oa.SourceName
	}
	if a.Started.IsZero() || (!oa.Started.IsZero() && oa.Started.Before(a.Started)) {
		a.Started = oa.Started
	}
	if oa.Ended.After(a.Ended) {
		a.Ended = oa.Ended
	}
	if a.Context == nil {
		a.Context = oa.Context
	}
	if a.RequestID == "" {
		a.RequestID = oa.RequestID
	}
	a.FeedCall = a.FeedCall || oa.FeedCall
	if a.Cancelled == "" {
		a.Cancelled = oa.Cancelled
	}
	if !a.HasResult && oa.HasResult {
		a.HasResult, a.Result = true, oa.Result
	}
}

// absorb adds the other view's progress counts and points; the latest
// notification is the current state.
func (p *Progress) absorb(op *Progress) {
	p.Sent += op.Sent
	p.WouldRelay += op.WouldRelay
	p.Relayed += op.Relayed
	p.NotIncreasing += op.NotIncreasing
	p.AfterCancel += op.AfterCancel
	if op.LastAt.After(p.LastAt) {
		p.Progress, p.Total, p.HasTotal, p.Message, p.LastAt = op.Progress, op.Total, op.HasTotal, op.Message, op.LastAt
	}
	for _, pt := range op.History() {
		p.addPoint(pt)
	}
}

// absorbTimeline merges the other view's timeline in time order, keeping
// the first and the latest events past maxTimeline.
func (c *Call) absorbTimeline(other []timelineEvent) {
	if len(other) == 0 {
		return
	}
	tl := make([]timelineEvent, 0, len(c.timeline)+len(other))
	tl = append(append(tl, c.timeline...), other...)
	sort.SliceStable(tl, func(i, j int) bool { return tl[i].Time.Before(tl[j].Time) })
	if len(tl) > maxTimeline {
		tl = append(tl[:maxTimeline/2:maxTimeline/2], tl[len(tl)-maxTimeline/2:]...)
	}
	c.timeline = tl
}
