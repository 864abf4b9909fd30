package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// Points draws with glyphs every monospace font has (braille is often missing).
var spin = spinner.Points

// spinnerFrame derives the spinner's frame from the clock, so every running
// row turns together and a frozen clock draws a frozen frame.
func spinnerFrame(now time.Time) string {
	n := int64(len(spin.Frames))
	i := (now.UnixNano()/int64(spin.FPS)%n + n) % n // a zero time is negative
	return spin.Frames[i]
}

// renderRow writes one call as one table line of exactly m.width cells.
func (m *tableModel) renderRow(b *strings.Builder, c *model.Call, lay tableLayout, sel bool) {
	var line strings.Builder
	line.Grow(m.width * 2)
	if sel {
		line.WriteString("▌ ")
	} else {
		line.WriteString("  ")
	}
	for i, col := range lay.cols {
		if i > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(m.cell(c, col, lay))
	}
	if !sel {
		b.WriteString(fitColored(line.String(), m.width))
		return
	}
	plain := fit(ansi.Strip(line.String()), m.width)
	b.WriteString(m.st.selected.Render(plain))
}

// cell is one column of a row, in the layout of the table.
func (m *tableModel) cell(c *model.Call, col column, lay tableLayout) string {
	w := col.width
	glyph := lay.statusGlyph
	st := &m.st
	switch col.id {
	case colTime:
		t := c.Started
		if t.IsZero() {
			t = c.FirstSeen
		}
		return st.muted.on(clock(t))
	case colTask:
		if c.TaskID == "" {
			return st.muted.on(fit("—", w))
		}
		return fit(model.ShortID(c.TaskID), w)
	case colTool:
		tool, server := displayTool(c)
		if tool == "" {
			return st.muted.on(fit("?", w))
		}
		tool = model.Sanitize(tool)
		if server == "" || ansi.StringWidth(tool)+2 > w {
			return st.text.on(fit(tool, w))
		}
		return st.text.on(tool) + st.muted.on(fit(" "+model.Sanitize(server), w-ansi.StringWidth(tool)))
	case colProgress:
		return m.progressCell(c, w, glyph)
	case colElapsed:
		return m.elapsedCell(c, w)
	case colFlags:
		return fitColored(m.flagsCell(c, !lay.bareFlags), w)
	case colRelay:
		sent, rel := c.SentCount(), c.RelayedCount()
		if !c.Relays || sent == 0 && rel == 0 { // plain MCP: nothing relays
			return strings.Repeat(" ", w)
		}
		s := strconv.Itoa(sent) + "→" + strconv.Itoa(rel)
		if sent != rel {
			return st.accent.on(fitRight(s, w))
		}
		return fitRight(s, w)
	case colStatus:
		if glyph {
			return st.status(c.Status).on(fit(statusGlyph(c.Status, m.wallNow), w))
		}
		return st.status(c.Status).on(fit(string(c.Status), w))
	}
	return strings.Repeat(" ", w)
}

// toolCellText is the tool cell's whole text: the tool, then its server.
func toolCellText(c *model.Call) string {
	tool, server := displayTool(c)
	if server != "" {
		tool += " " + server
	}
	return model.Sanitize(tool)
}

// displayTool splits an agent-facing name mcp__<server>__<tool> so the
// table leads with the tool: ("crawl_site", "web").
func displayTool(c *model.Call) (tool, server string) {
	name := c.Tool
	if name == "" {
		name = c.AgentName
	}
	if srv, t, ok := model.SplitAgentName(name); ok && t != "" {
		return t, srv
	}
	return name, ""
}

// fitColored fits an already coloured string (escape-aware).
func fitColored(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", max(0, w-n))
}

// progressCell: why a call ended badly, else a bar with progress/total and
// the last message (a spinner when the total is unknown), else what it
// returned. glyph: the status glyph is drawn before the tool already.
func (m *tableModel) progressCell(c *model.Call, w int, glyph bool) string {
	st := &m.st
	if cause := c.Cause(m.now); cause != "" {
		return m.causeCell(c, cause, w, glyph)
	}
	p := &c.Progress
	hasPoints := c.SentCount() > 0 || p.NPoints > 0
	var b strings.Builder
	used := 0
	switch {
	case p.HasTotal:
		barW := min(max(w/3, 6), 20)
		pct := 0.0
		if p.Total > 0 {
			pct = min(max(p.Progress/p.Total, 0), 1)
		}
		m.bar.Width = barW
		b.WriteString(m.bar.ViewAs(pct))
		counts := progressCounts(p)
		b.WriteByte(' ')
		b.WriteString(counts)
		used = barW + 1 + ansi.StringWidth(counts)
	case c.Status == model.StatusRunning:
		frame := spinnerFrame(m.wallNow)
		b.WriteString(st.run.on(frame))
		used = ansi.StringWidth(frame)
		if hasPoints {
			n := model.FormatNumber(p.Progress)
			b.WriteByte(' ')
			b.WriteString(n)
			used += 1 + len(n)
		}
	case hasPoints:
		n := model.FormatNumber(p.Progress)
		b.WriteString(st.muted.on("· " + n))
		used = 2 + len(n)
	default:
		return m.outcomeCell(c, w, glyph)
	}
	if note := p.Message; note != "" && w-used > 2 {
		msg := cut(wire(note), w-used-1)
		b.WriteByte(' ')
		b.WriteString(st.muted.on(msg))
		used += 1 + ansi.StringWidth(msg)
	}
	if used > w {
		return fitColored(b.String(), w)
	}
	b.WriteString(strings.Repeat(" ", w-used))
	return b.String()
}

// progressCounts is "5/23" (or "5" without a total).
func progressCounts(p *model.Progress) string {
	s := model.FormatNumber(p.Progress)
	if p.HasTotal {
		s += "/" + model.FormatNumber(p.Total)
	}
	return s
}

// causeCell says why the call ended badly, in the status's colour, and
// where its progress stopped when there is room.
func (m *tableModel) causeCell(c *model.Call, cause string, w int, glyph bool) string {
	p := m.st.status(c.Status)
	if !glyph {
		cause = statusGlyph(c.Status, m.wallNow) + " " + cause
	}
	if c.SentCount() == 0 && c.Progress.NPoints == 0 {
		return p.on(fit(cause, w))
	}
	at := " · at " + progressCounts(&c.Progress)
	if ansi.StringWidth(cause)+ansi.StringWidth(at) > w {
		return p.on(fit(cause, w))
	}
	return p.on(cause) + m.st.muted.on(fit(at, w-ansi.StringWidth(cause)))
}

// outcomeCell fills the progress column of a call that reported no
// progress and ended well (or runs): what it returned.
func (m *tableModel) outcomeCell(c *model.Call, w int, glyph bool) string {
	st := &m.st
	a := c.LastAttempt()
	mark := ""
	if !glyph && c.Status == model.StatusOK {
		mark = "✓ "
	}
	if a == nil || !a.HasResult {
		return st.muted.on(fit("—", w))
	}
	r := &a.Result
	switch {
	case r.TextPreview != "":
		return st.muted.on(fit(mark+model.Sanitize(r.TextPreview), w))
	case r.TextChars > 0:
		return st.muted.on(fit(mark+strconv.Itoa(r.TextChars)+" chars", w))
	}
	return st.muted.on(fit(strings.TrimSpace(mark), w))
}

// elapsedText is "3.6s/300s": elapsed, and the timeout when known.
func (m *tableModel) elapsedText(c *model.Call) string {
	s := model.FormatDuration(c.Elapsed(m.now))
	if c.TimeoutMS > 0 {
		s += "/" + model.FormatTimeout(c.TimeoutMS)
	}
	return s
}

func (m *tableModel) elapsedCell(c *model.Call, w int) string {
	over := c.TimeoutMS > 0 && c.TimedElapsed(m.now) > time.Duration(c.TimeoutMS)*time.Millisecond
	s := fitRight(m.elapsedText(c), w)
	switch {
	case over:
		return m.st.late.on(s)
	case !c.Finished():
		return s
	}
	return m.st.muted.on(s)
}

// flagsCell lists, most telling first: the token's verdict, attempt,
// replay, images, structured content, offload, limits, PII, warnings. A
// valid token is flagged when valid is set.
func (m *tableModel) flagsCell(c *model.Call, valid bool) string {
	st := &m.st
	var parts []string
	add := func(p paint, s string) { parts = append(parts, p.on(s)) }
	if ctx := c.Context; ctx != nil {
		switch ctx.Verdict {
		case model.VerdictValid:
			if valid {
				add(st.ok, "valid")
			}
		case model.VerdictRejected:
			s := "rejected"
			if ctx.HTTPStatus != 0 {
				s += " " + strconv.Itoa(ctx.HTTPStatus)
			}
			add(st.err, s)
		case model.VerdictUnverified:
			add(st.warn, "unverified")
		case model.VerdictAbsent:
			if m.snap.MissingToken(c) { // plain MCP never carries one
				add(st.muted, "no token")
			}
		}
	} else if m.snap.MissingToken(c) {
		add(st.muted, "no token")
	} else if c.Flags&model.FlagRejected != 0 {
		// A feed alone: the platform said the server rejected the credentials.
		s := "rejected"
		if a := c.LastAttempt(); a != nil && a.Result.HTTPStatus != 0 {
			s += " " + strconv.Itoa(a.Result.HTTPStatus)
		}
		add(st.err, s)
	}
	if n := len(c.Attempts); n > 1 || (n == 1 && c.Attempts[0].N > 1) {
		add(st.warn, "attempt "+strconv.Itoa(c.Attempts[n-1].N))
	}
	if c.MultiRound() {
		add(st.accent, "round "+strconv.Itoa(c.Rounds()))
	}
	if c.Flags&model.FlagReplayed != 0 {
		add(st.accent, "replayed")
	}
	if a := c.LastAttempt(); a != nil && len(a.Result.Images) > 0 {
		add(st.text, "img "+strconv.Itoa(len(a.Result.Images)))
	} else if c.Flags&model.FlagImages != 0 {
		add(st.text, "img")
	}
	switch {
	case c.Flags&model.FlagStructuredDropped != 0:
		add(st.warn, "sc dropped")
	case c.Flags&model.FlagStructured != 0:
		add(st.text, "sc")
	}
	if c.Flags&model.FlagOffloaded != 0 {
		add(st.text, "offloaded")
	}
	if c.Flags&model.FlagLimit != 0 {
		add(st.warn, "limit")
	}
	if c.Flags&model.FlagPII != 0 {
		add(st.warn, "PII")
	}
	if n := len(c.Warnings); n > 0 {
		add(st.warn, "⚠"+strconv.Itoa(n))
	}
	return strings.Join(parts, " ")
}
