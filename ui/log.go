package ui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// The event log (`l`) shows what belongs to no call: source states, task
// status, pass-through events and warnings such as malformed input, so
// nothing a source reported is out of sight.

// logModel is the event log in its own pager.
type logModel struct {
	*common
	pager
	width int
	shown bool // open: a new snapshot or width rebuilds it
}

func newLogModel(c *common, g *globalKeys) logModel {
	return logModel{common: c, pager: newPager(c, g, false)}
}

// SetSize: height holds the log's title line above the pager.
func (m *logModel) SetSize(width, height int) {
	resized := width != m.width
	m.width = width
	m.pager.setSize(width, height-1)
	if m.shown && resized {
		m.build()
	}
}

func (m *logModel) open() {
	m.shown = true
	m.build()
	m.viewport.GotoBottom()
}

func (m *logModel) close() {
	m.shown = false
	m.viewport.SetContent("")
}

func (m *logModel) focused() *model.Call { return nil }

// build writes the snapshot's other events into the pager, staying at the
// bottom if it was there.
func (m *logModel) build() {
	atBottom := m.viewport.AtBottom()
	st := &m.st
	var b strings.Builder
	other := m.snap.Other
	if len(other) == 0 {
		b.WriteString(" " + st.muted.on("no task, source or warning event yet"))
	}
	first := true
	for _, e := range inTimeOrder(other) {
		paint := st.text
		switch e.Kind {
		case model.KindWarning:
			paint = st.warn
		case model.KindSourceStatus:
			paint = st.muted
			if e.State == model.StateFailed {
				paint = st.err
			}
		}
		// Whole, wrapped under its time: a status line's reason is the
		// part that matters, and it is at the end.
		for _, l := range hangWrap(model.TextLine(*e), m.width-1, logIndent) { // redacted and sanitized
			if !first {
				b.WriteByte('\n')
			}
			first = false
			b.WriteString(paint.on(" " + l))
		}
	}
	m.viewport.SetContent(b.String())
	if atBottom {
		m.viewport.GotoBottom()
	}
}

// render writes the log's title line, then the pager.
func (m *logModel) render(b *strings.Builder) {
	n := len(m.snap.Other)
	left := " " + m.st.muted.on("◂ ") + m.st.bold.on("event log") + "  " +
		m.st.muted.on("task, source and warning events that belong to no call, newest last")
	right := m.st.muted.on(strconv.Itoa(n)+" kept") + " "
	joinEnds(b, left, right, m.width)
	b.WriteByte('\n')
	b.WriteString(m.viewport.View())
}

// logIndent lines continuation lines up after the time stamp.
const logIndent = len("15:04:05.000 ")

// inTimeOrder is the log's events oldest first: sources report from their
// own goroutines, so arrival order is not quite time order.
func inTimeOrder(events []model.Event) []*model.Event {
	out := make([]*model.Event, len(events))
	for i := range events {
		out[i] = &events[i]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// hangWrap wraps plain text to width cells, continuation lines indented.
func hangWrap(text string, width, indent int) []string {
	if ansi.StringWidth(text) <= width || width < indent+16 {
		return []string{cut(text, max(width, 1))}
	}
	lines := wrapText(text, width)
	rest, ok := strings.CutPrefix(text, lines[0])
	if !ok {
		return lines
	}
	out := []string{lines[0]}
	pad := strings.Repeat(" ", indent)
	for _, l := range wrapText(strings.TrimLeft(rest, " "), width-indent) {
		out = append(out, pad+l)
	}
	return out
}
