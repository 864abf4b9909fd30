package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// The task view's columns and cells: each task's state, id, source, the
// call running now, its counts and when it last moved.

// Task view columns.
const (
	taskStateWidth = len(taskCompleted)
	taskNowMin     = 16
)

// taskColumns is the task view's layout at one width.
type taskColumns struct {
	glyph                      bool // the state as a glyph (narrow)
	source, counts, warn, last int  // 0: not drawn
	calls, now                 int
}

func stateTitle(glyph bool) string {
	if glyph {
		return " "
	}
	return "STATE"
}

func (m *taskModel) stateWidth(c taskColumns) int {
	if c.glyph {
		return 1
	}
	return taskStateWidth
}

// columns sizes the task view's columns for the rows on screen.
func (m *taskModel) columns() taskColumns {
	c := taskColumns{calls: len("CALLS"), counts: len("FAIL"), warn: len("WARN")}
	src, last := 0, 0
	for _, r := range m.index.rows[min(m.offset, m.end()):m.end()] {
		if !namedAfterTask(r) {
			src = max(src, ansi.StringWidth(model.Sanitize(r.source)))
		}
		c.calls = max(c.calls, len(strconv.Itoa(r.done)+"/"+strconv.Itoa(r.calls)))
		last = max(last, ansi.StringWidth(m.lastText(r)))
	}
	if src > 0 { // no column when every source is named after its task
		src = min(max(src, len("FROM")), 24)
	}
	last = max(last, len("LAST"))
	used := func() int {
		n := markerWidth + m.stateWidth(c) + 1 + 8 + 1 + c.calls + 1 + c.counts + 1 + c.warn + 1
		if c.source > 0 {
			n += c.source + 1
		}
		if c.last > 0 {
			n += c.last + 1
		}
		return n
	}
	c.source, c.last = src, last
	for _, giveWay := range []func(){
		func() { c.last = 0 },
		func() { c.source = 0 },
		func() { c.glyph = true },
	} {
		if m.width-used() >= causeWant {
			break
		}
		giveWay()
	}
	c.now = max(taskNowMin, m.width-used())
	return c
}

// renderTask writes one task as one line of m.width cells.
func (m *taskModel) renderTask(b *strings.Builder, r *taskRow, c taskColumns, sel bool) {
	st := &m.st
	var line strings.Builder
	if sel {
		line.WriteString("▌ ")
	} else {
		line.WriteString("  ")
	}
	p := m.statePaint(r.state)
	if c.glyph {
		line.WriteString(p.on(m.stateGlyph(r.state)))
	} else {
		line.WriteString(p.on(fit(r.state, taskStateWidth)))
	}
	line.WriteByte(' ')
	if r.id == "" {
		line.WriteString(st.muted.on(fit("—", 8)))
	} else {
		line.WriteString(fit(model.ShortID(r.id), 8))
	}
	if c.source > 0 {
		line.WriteString(" " + st.muted.on(fit(model.Sanitize(r.source), c.source)))
	}
	line.WriteString(" " + m.nowCell(r, c.now))
	line.WriteString(" " + fitRight(strconv.Itoa(r.done)+"/"+strconv.Itoa(r.calls), c.calls))
	fail := fitRight(strconv.Itoa(r.failed), c.counts)
	if r.failed > 0 {
		fail = st.err.on(fail)
	} else {
		fail = st.muted.on(fail)
	}
	line.WriteString(" " + fail)
	warn := fitRight(strconv.Itoa(r.warnings), c.warn)
	if r.warnings > 0 {
		warn = st.warn.on(warn)
	} else {
		warn = st.muted.on(warn)
	}
	line.WriteString(" " + warn)
	if c.last > 0 {
		line.WriteString(" " + st.muted.on(fitRight(m.lastText(r), c.last)))
	}
	if !sel {
		b.WriteString(fitColored(line.String(), m.width))
		return
	}
	b.WriteString(st.selected.Render(fit(ansi.Strip(line.String()), m.width)))
}

// nowCell is the call running now with its progress; when none runs, how
// the task ended, or its latest call's outcome.
func (m *taskModel) nowCell(r *taskRow, w int) string {
	st := &m.st
	c := r.now
	switch {
	case c != nil && c.Status == model.StatusRunning:
		tool, _ := displayTool(c)
		tool = cut(model.Sanitize(tool), max(8, w/3))
		more := ""
		if r.running > 1 {
			more = " +" + strconv.Itoa(r.running-1)
		}
		rest := w - ansi.StringWidth(tool) - ansi.StringWidth(more) - 1
		return st.text.on(tool) + st.accent.on(more) + " " + m.progressOf(c, rest)
	case r.said != "" && r.state != taskRunning:
		return m.statePaint(r.state).on(fit(wire(r.said), w))
	case c != nil:
		tool, _ := displayTool(c)
		s := statusGlyph(c.Status, m.wallNow) + " " + model.Sanitize(tool)
		if cause := c.Cause(m.now); cause != "" {
			s += ": " + cause
		}
		return st.status(c.Status).on(fit(s, w))
	}
	return st.muted.on(fit(wire(r.said), w))
}

// progressOf is a running call's bar, counts and message in w cells.
func (m *taskModel) progressOf(c *model.Call, w int) string {
	if w <= 0 {
		return ""
	}
	p := &c.Progress
	var s string
	used := 0
	if p.HasTotal {
		barW := min(max(w/4, 6), 16)
		pct := 0.0
		if p.Total > 0 {
			pct = min(max(p.Progress/p.Total, 0), 1)
		}
		m.bar.Width = barW
		s = m.bar.ViewAs(pct) + " "
		used = barW + 1
	} else {
		s = m.st.run.on(spinnerFrame(m.wallNow)) + " "
		used = ansi.StringWidth(spinnerFrame(m.wallNow)) + 1
	}
	text := ""
	if c.SentCount() > 0 || p.NPoints > 0 {
		text = progressCounts(p)
	}
	if p.Message != "" {
		text = strings.TrimSpace(text + " " + wire(p.Message))
	}
	if used >= w {
		return fitColored(s, w)
	}
	return s + m.st.muted.on(fit(text, w-used))
}

// lastText is how long ago the task last moved.
func (m *taskModel) lastText(r *taskRow) string {
	if r.last.IsZero() {
		return ""
	}
	d := m.now.Sub(r.last)
	if d < 0 {
		d = 0
	}
	return model.FormatDuration(d) + " ago"
}

func (m *taskModel) statePaint(state string) paint {
	switch state {
	case taskRunning:
		return m.st.run
	case taskCompleted:
		return m.st.ok
	case taskFailed:
		return m.st.err
	case taskWaiting:
		return m.st.warn
	}
	return m.st.muted
}

// stateGlyph is a task state in one cell: the calls' glyphs where they
// mean the same, ~ waiting and ○ idle.
func (m *taskModel) stateGlyph(state string) string {
	switch state {
	case taskRunning:
		return runningGlyph(m.wallNow)
	case taskCompleted:
		return "✓"
	case taskFailed:
		return "✕"
	case taskCancelled:
		return "⊘"
	case taskWaiting:
		return "~"
	}
	return "○"
}
