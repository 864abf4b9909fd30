package ui

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"toolscope/model"
)

func toolName(c *model.Call) string {
	if c.Tool != "" {
		return c.Tool
	}
	if c.AgentName != "" {
		return c.AgentName
	}
	return "?"
}

// renderDetail is every section of one call, top to bottom.
func (m *detailModel) renderDetail(c *model.Call) string {
	d := &detailText{st: &m.st, width: m.width, cache: &m.jsonCache}
	// The outcome first, then why (token, context), then what went in and
	// came out, and the raw timeline last.
	m.detailCallSection(d, c)
	m.detailResult(d, c)
	m.detailRounds(d, c)
	m.detailProgress(d, c)
	m.detailToken(d, c)
	m.detailMeta(d, c)
	m.detailSoat(d, c)
	m.detailHeaders(d, c)
	d.section("ARGUMENTS", d.st.muted.on(argSize(c)))
	d.jsonBlock(c.Arguments, 3)
	m.detailNotifications(d, c)
	m.detailAttempts(d, c)
	m.detailWarnings(d, c)
	m.detailTimeline(d, c)
	return strings.TrimRight(d.b.String(), "\n")
}

func argSize(c *model.Call) string {
	if len(c.Arguments) == 0 {
		return ""
	}
	return formatBytes(len(c.Arguments))
}

func (m *detailModel) detailCallSection(d *detailText, c *model.Call) {
	st := d.st
	d.section("CALL", st.status(c.Status).on(string(c.Status)))
	d.kv("id", model.Sanitize(c.ID))
	tool := model.Sanitize(toolName(c))
	if c.AgentName != "" && c.AgentName != c.Tool {
		tool += st.muted.on("  agent sees " + model.Sanitize(c.AgentName))
	}
	d.kv("tool", tool)
	if c.TaskID != "" {
		d.kv("task", model.Sanitize(c.TaskID))
	}
	if c.ToolCallID != "" {
		d.kv("tool call", model.Sanitize(c.ToolCallID))
	}
	if c.IdempotencyKey != "" {
		d.kv("idempotency key", model.Sanitize(c.IdempotencyKey))
	}
	if c.RequestID != "" {
		d.kv("json-rpc id", model.Sanitize(c.RequestID))
	}
	if c.MultiRound() {
		d.kv("rounds", strconv.Itoa(c.Rounds())+st.muted.on("  the server asked the client for input (see ROUNDS)"))
	}
	if len(c.Sources) > 0 {
		names := make([]string, len(c.Sources))
		for i, s := range c.Sources {
			names[i] = model.Sanitize(s)
		}
		d.kv("seen by", strings.Join(names, ", "))
	}
	start := c.Started
	if start.IsZero() {
		start = c.FirstSeen
	}
	d.kv("started", clockMillis(start)+" UTC")
	el := model.FormatDuration(c.Elapsed(m.now))
	if c.TimeoutMS > 0 {
		el += st.muted.on(" of a " + model.FormatTimeout(c.TimeoutMS) + " timeout")
	}
	if c.Finished() {
		d.kv("ended", clockMillis(c.Ended)+" UTC  "+st.muted.on("after ")+el)
	} else {
		d.kv("elapsed", el)
	}
	d.kv("events", strconv.Itoa(c.Events))
}

// timelineEntry is one line of the timeline: a kept event or a progress point.
type timelineEntry struct {
	at    time.Time
	ev    *model.Event
	point *model.Point
}

func (m *detailModel) detailTimeline(d *detailText, c *model.Call) {
	st := d.st
	hist := c.Progress.History()
	timeline := c.Timeline()
	entries := make([]timelineEntry, 0, len(timeline)+len(hist))
	for i := range timeline {
		entries = append(entries, timelineEntry{at: timeline[i].Time, ev: &timeline[i]})
	}
	for i := range hist {
		entries = append(entries, timelineEntry{at: hist[i].Time(), point: &hist[i]})
	}
	// At one instant a call comes before its progress and its progress
	// before its result: a tap stamps what it read in one chunk alike.
	order := func(e timelineEntry) int {
		switch {
		case e.point != nil:
			return 1
		case e.ev.Kind == model.KindToolCall:
			return 0
		}
		return 2
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		return a.at.Before(b.at) || a.at.Equal(b.at) && order(a) < order(b)
	})
	note := strconv.Itoa(len(entries)) + " events"
	if kept := len(timeline) + c.SentCount() + c.Progress.Relayed; c.Events > len(entries) && kept > 0 {
		note += " kept of " + strconv.Itoa(c.Events)
	}
	d.section("TIMELINE", st.muted.on(note))
	agentArea := m.speaksAgentArea(c)
	var prev time.Time
	for _, e := range entries {
		delta := "      "
		if !prev.IsZero() {
			delta = "+" + model.FormatDuration(e.at.Sub(prev))
		}
		prev = e.at
		var src, kind, sum string
		var kp paint
		if e.ev != nil {
			src = sourceText(e.ev.Source, e.ev.SourceName)
			kind, sum, kp = m.eventSummary(e.ev, agentArea)
		} else {
			src = pointSource(timeline, e.point)
			kind, sum, kp = "tool.progress", m.pointSummary(e.point, c.Relays), st.run
		}
		d.line("   " + st.muted.on(clockMillis(e.at)) + " " + fitRight(delta, 7) + "  " +
			fit(cut(src, 16), 16) + " " + kp.on(fit(kind, 14)) + " " + cut(sum, max(10, d.width-timelineText-1)))
	}
	if len(entries) == 0 {
		d.line("   " + st.muted.on("(nothing yet)"))
	}
}

// pointSource is the source that carried a progress point, said as the
// timeline says its events: a point keeps only whether a tap or a feed saw
// it, so its name is that of the latest event of that kind before it (the
// first when none is before it).
func pointSource(timeline []model.Event, p *model.Point) string {
	kind := model.SourceFeed
	if p.FromTap {
		kind = model.SourceTap
	}
	name := ""
	for i := range timeline {
		ev := &timeline[i]
		if ev.Source != kind || ev.SourceName == "" {
			continue
		}
		if name != "" && ev.Time.After(p.Time()) {
			break
		}
		name = ev.SourceName
	}
	return sourceText(kind, name)
}

// timelineText is where a timeline line's summary starts: indent, time,
// delta, source and kind before it.
const timelineText = 3 + 12 + 1 + 7 + 2 + 16 + 1 + 14 + 1

// pointSummary is a notification in the timeline: its value, whether it is
// relayed (where anything relays), its message.
func (m *detailModel) pointSummary(p *model.Point, relays bool) string {
	st := &m.st
	s := model.FormatNumber(p.Progress)
	if p.HasTotal {
		s += "/" + model.FormatNumber(p.Total)
	}
	switch {
	case !p.FromTap:
		s += " " + st.ok.on("relayed")
	case p.AfterCancel && !relays:
		s += " " + st.warn.on("sent after the cancellation")
	case p.AfterCancel:
		s += " " + st.warn.on("sent after the cancellation, not relayed")
	case !relays:
	case p.Relayed:
		s += " " + st.ok.on("would relay")
	default:
		s += " " + st.muted.on("dropped by "+model.SaysRelayRule)
	}
	if p.Message != "" {
		s += " " + st.muted.on(strconv.Quote(wire(p.Message)))
	}
	return s
}

// eventSummary is the kind, a one-line summary and the kind's colour;
// agentArea says the call is judged by AgentArea's contract (its token said).
func (m *detailModel) eventSummary(e *model.Event, agentArea bool) (string, string, paint) {
	st := &m.st
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	kp := st.text
	switch e.Kind {
	case model.KindToolCall:
		kp = st.accent
		add(model.Sanitize(e.Tool))
		if e.Attempt > 0 {
			add("attempt " + strconv.Itoa(e.Attempt))
		}
		if e.Round > 0 {
			add("round " + strconv.Itoa(int(e.Round)))
		}
		if len(e.InputResponses) > 0 {
			add("answers " + formatBytes(len(e.InputResponses)))
		}
		if e.Context != nil && (agentArea || e.Context.Present) { // plain MCP has no token to speak of
			add("token " + verdictText(e.Context))
		}
		if len(e.Arguments) > 0 {
			add("args " + formatBytes(len(e.Arguments)))
		}
		if e.TimeoutMS > 0 {
			add("timeout " + model.FormatTimeout(e.TimeoutMS))
		}
	case model.KindToolResult:
		kp = st.ok
		status := "ok"
		switch {
		case e.IsError || e.Error != "" || e.RPCCode != 0 || e.HTTPStatus >= 400:
			status, kp = "error", st.err
		case e.ResultType == model.ResultInputRequired:
			status, kp = "input_required", st.warn
		}
		add(status)
		if e.Round > 0 {
			add("round " + strconv.Itoa(int(e.Round)))
		}
		for _, ir := range e.InputRequests {
			add("asks " + cut(model.Sanitize(ir.Summary()), 60))
		}
		if e.HTTPStatus != 0 {
			add("http " + strconv.Itoa(e.HTTPStatus))
		}
		if e.RPCCode != 0 {
			add("rpc " + strconv.Itoa(e.RPCCode))
		}
		if e.TextChars > 0 {
			add(strconv.Itoa(e.TextChars) + " chars")
		}
		if len(e.Images) > 0 {
			add("img " + strconv.Itoa(len(e.Images)))
		}
		if e.StructuredContentBytes > 0 {
			add("sc " + formatBytes(e.StructuredContentBytes))
		}
		if e.Replayed {
			add("replayed")
		}
		if e.Late {
			add("late")
		}
		if e.DurationMS > 0 {
			add(model.FormatDuration(time.Duration(e.DurationMS) * time.Millisecond))
		}
		add(cut(model.Sanitize(e.Error), 60))
	case model.KindToolCancelled:
		kp = st.muted
		add(model.Sanitize(e.Reason))
	case model.KindWarning:
		kp = st.warn
		add(wire(e.Code) + ": " + wire(e.Message))
	case model.KindTaskStatus:
		add(model.Sanitize(e.EventType))
		add(wire(e.Message))
		add(model.Sanitize(e.Reason))
	case model.KindEvent:
		add(model.Sanitize(e.EventType))
	}
	return model.Sanitize(string(e.Kind)), strings.Join(parts, " · "), kp
}

func verdictText(ctx *model.Context) string {
	v := ctx.Verdict
	if ctx.HTTPStatus != 0 {
		v += " " + strconv.Itoa(ctx.HTTPStatus)
	}
	return v
}
