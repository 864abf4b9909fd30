package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

var sparkLevels = []rune("▁▂▃▄▅▆▇█")

func (m *detailModel) detailProgress(d *detailText, c *model.Call) {
	st := d.st
	p := &c.Progress
	hist := p.History()
	if c.SentCount() == 0 && p.Relayed == 0 && len(hist) == 0 {
		d.section("PROGRESS", st.muted.on("no notification"))
		return
	}
	if !c.Relays { // plain MCP: what the server sent is all there is
		d.section("PROGRESS", st.accent.on("sent "+strconv.Itoa(c.SentCount())))
	} else {
		d.section("PROGRESS", st.accent.on("sent "+strconv.Itoa(c.SentCount())+" → relayed "+strconv.Itoa(c.RelayedCount())))
	}
	if p.Sent > 0 && c.Relays {
		d.kv("tap saw", strconv.Itoa(p.Sent)+" sent, "+strconv.Itoa(p.WouldRelay)+" pass "+model.SaysRelayRule)
	}
	if p.Relayed > 0 {
		d.kv("feed relayed", strconv.Itoa(p.Relayed))
	}
	last := model.FormatNumber(p.Progress)
	if p.HasTotal {
		last += "/" + model.FormatNumber(p.Total)
	}
	if p.Message != "" {
		last += "  " + st.muted.on(strconv.Quote(wire(p.Message)))
	}
	d.kv("latest", last)
	if p.NotIncreasing > 0 {
		d.kv("not increasing", st.warn.on(strconv.Itoa(p.NotIncreasing)+" notifications"))
	}
	if p.AfterCancel > 0 {
		what := " sent after the call was cancelled"
		if c.Relays {
			what += " (not relayed)"
		}
		d.kv("after cancel", st.warn.on(strconv.Itoa(p.AfterCancel)+what))
	}
	if len(hist) > 0 {
		d.kv("shape", st.run.on(sparkline(hist)))
	}
}

// detailNotifications lists every kept notification with its bar, and
// whether the platform relays it.
func (m *detailModel) detailNotifications(d *detailText, c *model.Call) {
	st := d.st
	p := &c.Progress
	hist := p.History()
	if len(hist) == 0 {
		return
	}
	d.section("NOTIFICATIONS", st.muted.on(strconv.Itoa(len(hist))+" kept"))
	barW := 16
	// The counts column is as wide as its longest value: 18000/27000 whole.
	valW := 9
	for i := range hist {
		valW = max(valW, len(pointValue(&hist[i])))
	}
	var prev time.Time
	for i := range hist {
		pt := &hist[i]
		delta := ""
		if !prev.IsZero() {
			delta = "+" + model.FormatDuration(pt.Time().Sub(prev))
		}
		prev = pt.Time()
		val := pointValue(pt)
		pct := 0.0
		if pt.HasTotal && pt.Total > 0 {
			pct = min(max(pt.Progress/pt.Total, 0), 1)
		}
		m.bar.Width = barW
		bar := m.bar.ViewAs(pct)
		if !pt.HasTotal {
			bar = st.muted.on(fit("(no total)", barW))
		}
		src, rel := "feed", st.ok.on("relayed")
		if pt.FromTap {
			src = "tap"
			switch {
			case pt.AfterCancel:
				rel = st.warn.on("after cancel")
			case !c.Relays:
				rel = "" // plain MCP: nothing relays
			case pt.Relayed:
				rel = st.ok.on("would relay")
			default:
				rel = st.muted.on("dropped")
			}
		}
		line := "   " + st.muted.on(clockMillis(pt.Time())) + " " + fitRight(delta, 7) + "  " + fit(src, 4) + " " +
			bar + " " + fit(val, valW) + " " + fit(rel, 11)
		if pt.Message != "" {
			line += " " + st.muted.on(cut(wire(pt.Message), max(10, d.width-66-valW)))
		}
		d.line(line)
	}
	if n := c.SentCount() + p.Relayed; n > len(hist) {
		d.line("   " + st.muted.on("("+strconv.Itoa(len(hist))+" of "+strconv.Itoa(n)+" notifications kept: first, then a thinning sample)"))
	}
}

// pointValue is a notification's "progress/total" (or progress alone).
func pointValue(p *model.Point) string {
	s := model.FormatNumber(p.Progress)
	if p.HasTotal {
		s += "/" + model.FormatNumber(p.Total)
	}
	return s
}

// sparkline draws progress over the kept history, one cell a point.
func sparkline(hist []model.Point) string {
	top := 0.0
	for _, p := range hist {
		if p.HasTotal && p.Total > top {
			top = p.Total
		}
		if p.Progress > top {
			top = p.Progress
		}
	}
	var b strings.Builder
	for _, p := range hist {
		lvl := 0
		if top > 0 {
			lvl = int(p.Progress / top * float64(len(sparkLevels)-1))
		}
		b.WriteRune(sparkLevels[min(max(lvl, 0), len(sparkLevels)-1)])
	}
	return b.String()
}

func (m *detailModel) detailResult(d *detailText, c *model.Call) {
	st := d.st
	a := c.LastAttempt()
	if a == nil || !a.HasResult {
		note := st.muted.on("none yet")
		if c.Status == model.StatusNeedsInput {
			note = st.warn.on("none yet: the server asked the client for input (see ROUNDS)")
		}
		if a != nil && a.Cancelled != "" {
			note = st.muted.on("cancelled: " + model.Sanitize(a.Cancelled))
		}
		d.section("RESULT", note)
		return
	}
	r := &a.Result
	status := st.ok.on("ok")
	if c.Status == model.StatusError || r.IsError {
		status = st.err.on("error")
	}
	if r.Late {
		status += " " + st.late.on(model.SaysLate)
	}
	if c.Status == model.StatusCancelled {
		status = st.status(c.Status).on("cancelled")
	}
	d.section("RESULT", status+st.muted.on(" · attempt "+strconv.Itoa(a.N)))
	if a.Cancelled != "" {
		d.kv("cancelled", model.Sanitize(a.Cancelled))
	}
	d.kv("isError", strconv.FormatBool(r.IsError))
	if r.Replayed {
		d.kv("replayed", st.accent.on("yes: "+model.SaysReplayed))
	}
	if r.HTTPStatus != 0 {
		d.kv("http status", strconv.Itoa(r.HTTPStatus))
	}
	if r.RPCCode != 0 {
		d.kv("json-rpc code", strconv.Itoa(r.RPCCode))
	}
	if r.Error != "" {
		d.kv("error", st.err.on(wire(r.Error))) // whole: kv wraps it
	}
	if r.Denied != "" {
		d.kv("denied", model.Sanitize(r.Denied))
	}
	if r.ResultType != "" {
		d.kv("result type", model.Sanitize(r.ResultType))
	}
	if r.DurationMS > 0 {
		d.kv("duration", model.FormatDuration(time.Duration(r.DurationMS)*time.Millisecond))
	}
	// The platform's limits are AgentArea's: a plain MCP call's result
	// reaches its client as the server sent it.
	limits := c.AgentArea()
	text := strconv.Itoa(r.TextChars) + " chars"
	if limits {
		text += " " + st.muted.on("(limit "+strconv.Itoa(model.MaxTextChars)+")")
		if r.Offloaded || r.TextChars > model.MaxTextChars {
			text += " " + st.warn.on(model.SaysOffloaded)
		}
	}
	d.kv("text", text)
	if r.TextPreview != "" {
		d.line("   " + st.label.on("preview"))
		d.block(r.TextPreview, 5, 20)
	}
	m.resultImages(d, r, limits)
	m.resultStructured(d, r, limits)
}

// resultImages lists the images, each against MCP's rules and, with
// limits, the platform's.
func (m *detailModel) resultImages(d *detailText, r *model.Result, limits bool) {
	if len(r.Images) == 0 {
		return
	}
	st := d.st
	note := strconv.Itoa(len(r.Images))
	switch {
	case !limits:
	case len(r.Images) > model.MaxImages:
		note = st.warn.on(note + " (over " + strconv.Itoa(model.MaxImages) + ")")
	default:
		note += st.muted.on(" (at most " + strconv.Itoa(model.MaxImages) + ")")
	}
	d.kv("images", note)
	for _, im := range r.Images {
		verdict := st.ok.on("✓")
		if limits {
			verdict = st.ok.on("✓ within limits")
		}
		if im.Problem != "" {
			verdict = st.err.on("✗ " + model.Sanitize(im.Problem))
		} else if limits && im.Size > model.MaxImageBytes {
			verdict = st.err.on("✗ over 5 MB")
		}
		d.line("     " + st.muted.on(fit(model.Sanitize(im.ID), 12)) + " " + fit(model.Sanitize(im.MimeType), 12) + " " +
			fitRight(formatBytes(im.Size), 9) + "  " + verdict)
	}
}

// resultStructured is the structured content's size (with limits, against
// the platform's), then the content.
func (m *detailModel) resultStructured(d *detailText, r *model.Result, limits bool) {
	if r.StructuredContentBytes == 0 && len(r.StructuredContent) == 0 && !r.StructuredContentDropped {
		return
	}
	st := d.st
	size := r.StructuredContentBytes
	if size == 0 {
		size = len(r.StructuredContent)
	}
	note := formatBytes(size)
	if limits {
		note += st.muted.on(" (limit " + strconv.Itoa(model.MaxStructuredChars) + " chars)")
	}
	if r.StructuredContentDropped {
		note += " " + st.warn.on(model.SaysDropped)
	}
	d.kv("structured", note)
	if len(r.StructuredContent) > 0 {
		d.jsonBlock(r.StructuredContent, 5)
	}
}

func (m *detailModel) detailAttempts(d *detailText, c *model.Call) {
	if len(c.Attempts) == 0 {
		return
	}
	st := d.st
	d.section("ATTEMPTS", st.muted.on(strconv.Itoa(len(c.Attempts))))
	agentArea := m.speaksAgentArea(c)
	for _, a := range c.Attempts {
		parts := []string{"#" + strconv.Itoa(a.N)}
		via := []string{}
		if a.Exchange != "" {
			via = append(via, sourceText(model.SourceTap, a.SourceName)+" exchange "+model.Sanitize(a.Exchange))
		}
		if a.FeedCall {
			via = append(via, "feed")
		}
		if len(via) > 0 {
			parts = append(parts, strings.Join(via, " + "))
		}
		if a.RequestID != "" {
			parts = append(parts, "id "+model.Sanitize(a.RequestID))
		}
		parts = append(parts, clockMillis(a.Started))
		if !a.Ended.IsZero() && !a.Started.IsZero() {
			parts = append(parts, model.FormatDuration(a.Ended.Sub(a.Started)))
		}
		if a.Context != nil && (agentArea || a.Context.Present) {
			parts = append(parts, m.verdictPaint(a.Context.Verdict).on("token "+verdictText(a.Context)))
		}
		failed := a.HasResult && (a.Result.IsError || a.Result.Error != "" || a.Result.RPCCode != 0 || a.Result.HTTPStatus >= 400)
		switch {
		case a.Cancelled != "" && (failed || !a.HasResult): // a timeout is both: cancelled says more
			parts = append(parts, st.muted.on("cancelled: "+model.Sanitize(a.Cancelled)))
		case failed:
			parts = append(parts, st.err.on("error"))
		case a.HasResult:
			parts = append(parts, st.ok.on("ok"))
		default:
			parts = append(parts, st.run.on("running"))
		}
		if a.HasResult && a.Result.Replayed {
			parts = append(parts, st.accent.on("replayed"))
		}
		d.line("   " + strings.Join(parts, st.muted.on(" · ")))
	}
}

func (m *detailModel) detailWarnings(d *detailText, c *model.Call) {
	if len(c.Warnings) == 0 {
		return
	}
	st := d.st
	d.section("WARNINGS", st.warn.on(strconv.Itoa(len(c.Warnings))))
	for i := range c.Warnings {
		w := &c.Warnings[i]
		head := "   " + st.muted.on(clockMillis(w.Time)) + " " + st.warn.on(model.Sanitize(w.Code)) + " "
		// The message whole, its next lines under its first word.
		indent := ansi.StringWidth(head)
		msg := wire(w.Message)
		if avail := d.width - indent - 1; avail >= 20 && ansi.StringWidth(msg) > avail {
			msg = strings.ReplaceAll(ansi.Wrap(msg, avail, " /,"), "\n", "\n"+strings.Repeat(" ", indent))
		}
		d.line(head + msg)
	}
}
