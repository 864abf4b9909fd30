package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// View draws the frame: header, then the part on screen (or the help),
// then the footer.
func (m *Model) View() string {
	var b strings.Builder
	b.Grow(m.width * (m.height + 1) * 2)
	m.renderTitle(&b)
	b.WriteByte('\n')
	if m.help.ShowAll && !m.filtering {
		m.renderHelp(&b)
		return b.String()
	}
	m.active().render(&b)
	for _, l := range m.messageLines() {
		b.WriteByte('\n')
		b.WriteString(fitColored(l, m.width))
	}
	b.WriteByte('\n')
	m.renderFooter(&b)
	return b.String()
}

// renderTitle: program, title, totals (events and warnings apart), rate,
// and follow/pause state.
func (m *Model) renderTitle(b *strings.Builder) {
	st := &m.st
	left := st.title.on(" toolscope")
	if m.opts.Title != "" {
		left += st.muted.on(" · ") + model.Sanitize(m.opts.Title)
	}
	snap := m.snap
	// Warnings are counted apart: the events are what the sources saw.
	events := snap.Events - snap.Warnings + int64(m.waiting)
	// The long form when it fits beside the title, else a compact one.
	var r string
	for _, compact := range []bool{false, true} {
		word := func(long, short string) string {
			if compact {
				return short
			}
			return long
		}
		right := []string{
			formatCount(events) + st.muted.on(word(" events", " ev")),
			formatCount(int64(len(snap.Calls))) + st.muted.on(" calls"),
		}
		if m.table.running > 0 {
			right = append(right, st.run.on(formatCount(int64(m.table.running))+word(" running", " run")))
		}
		if m.table.needInput > 0 {
			right = append(right, st.warn.on(formatCount(int64(m.table.needInput))+word(" need input", " input")))
		}
		right = append(right, strconv.FormatFloat(m.rate.perSecond(), 'f', 0, 64)+st.muted.on("/s"))
		if snap.Warnings > 0 {
			right = append(right, st.warn.on("⚠ "+formatCount(snap.Warnings)+word(" warnings", "")))
		}
		if snap.Evicted > 0 && !compact {
			right = append(right, st.muted.on(formatCount(snap.Evicted)+" evicted"))
		}
		switch {
		case m.paused:
			right = append(right, st.warn.on(word("⏸ PAUSED · ", "⏸ PAUSED ")+formatCount(int64(m.waiting))+" waiting"))
		case m.mode == modeTable && m.table.follow:
			right = append(right, st.accent.on(word("↓ follow", "↓")))
		}
		r = strings.Join(right, st.muted.on(" · ")) + " "
		if ansi.StringWidth(left)+ansi.StringWidth(r)+1 <= m.width {
			break
		}
	}
	joinEnds(b, left, r, m.width)
}

// joinEnds writes left and right on one line of width cells, cutting the left.
func joinEnds(b *strings.Builder, left, right string, width int) {
	rw := ansi.StringWidth(right)
	if rw > width {
		right = ansi.Truncate(right, width, "…")
		rw = ansi.StringWidth(right)
	}
	lw := ansi.StringWidth(left)
	if lw > width-rw-1 {
		left = ansi.Truncate(left, max(0, width-rw-1), "…")
		lw = ansi.StringWidth(left)
	}
	b.WriteString(left)
	b.WriteString(strings.Repeat(" ", max(0, width-lw-rw)))
	b.WriteString(right)
}

// renderFooter: the filter input while typing, else the part's keys that
// fit (those in its giveWay list leave first) and its position. Messages
// go on the status line, never here: they would push keys out.
func (m *Model) renderFooter(b *strings.Builder) {
	st := &m.st
	if m.filtering {
		count := st.muted.on(strconv.Itoa(len(m.table.rows))+" of "+strconv.Itoa(len(m.snap.Calls))) + " "
		if p := m.table.filterProblem(); p != "" {
			count = p + "  " + count
		}
		joinEnds(b, " "+m.input.View(), count, m.width)
		return
	}
	right := m.active().appendStatus(nil)
	m.help.Width = 0 // the bindings are chosen to fit; help must not cut "? help"
	room := max(6, m.width-ansi.StringWidth(strings.Join(right, "  "))-3)
	c := m.active()
	left := " " + m.help.ShortHelpView(shortHelpFitting(c.ShortHelp(), c.giveWay(), room, m.help.ShortHelpView))
	joinEnds(b, left, strings.Join(right, "  ")+" ", m.width)
}
