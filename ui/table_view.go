package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// render writes the sources line, the column titles and the rows in the window.
func (m *tableModel) render(b *strings.Builder) {
	m.renderSources(b)
	b.WriteByte('\n')
	m.renderTable(b)
}

// renderSources: each source with its state and counts, on one line.
func (m *tableModel) renderSources(b *strings.Builder) {
	st := &m.st
	if len(m.snap.Sources) == 0 {
		b.WriteString(fit(st.muted.on(" no source has reported yet"), m.width))
		return
	}
	// Full labels when they fit, else fewer counts, else a summary by kind
	// and state ("2 taps ended   3 feeds connected"), cut only if even that
	// does not fit.
	for detail := 2; detail >= 0; detail-- {
		parts := make([]string, 0, len(m.snap.Sources))
		for _, s := range m.snap.Sources {
			parts = append(parts, m.sourceLabel(s, detail))
		}
		line := " " + strings.Join(parts, st.muted.on("   "))
		if ansi.StringWidth(line) <= m.width {
			b.WriteString(fitColored(line, m.width))
			return
		}
	}
	b.WriteString(fitColored(" "+strings.Join(m.sourceSummary(), st.muted.on("   ")), m.width))
}

// sourceSummary counts the sources by kind and state, problems first.
func (m *tableModel) sourceSummary() []string {
	type group struct {
		kind, state string
		n           int
		first       model.SourceState
	}
	var groups []*group
	find := func(kind, state string) *group {
		for _, g := range groups {
			if g.kind == kind && g.state == state {
				return g
			}
		}
		g := &group{kind: kind, state: state}
		groups = append(groups, g)
		return g
	}
	for _, s := range m.snap.Sources {
		g := find(s.Source, s.State)
		if g.n == 0 {
			g.first = s
		}
		g.n++
	}
	var problems, rest []string
	for _, g := range groups {
		label := m.sourceLabel(g.first, 0)
		if g.n > 1 {
			s := g.first
			s.Source, s.Name = "", strconv.Itoa(g.n)+" "+model.Sanitize(g.kind)+"s"
			label = m.sourceLabel(s, 0)
		}
		if g.state == model.StateFailed || g.state == model.StateReconnecting {
			problems = append(problems, label)
		} else {
			rest = append(rest, label)
		}
	}
	return append(problems, rest...)
}

// sourceLabel: detail 2 has event and call counts, 1 events only, 0 none.
func (m *tableModel) sourceLabel(s model.SourceState, detail int) string {
	st := &m.st
	dot, state := st.muted.on("○"), model.Sanitize(s.State)
	switch s.State {
	case model.StateConnected:
		dot = st.ok.on("●")
	case model.StateConnecting:
		dot = st.warn.on("●")
	case model.StateReconnecting:
		dot = st.warn.on("●")
		state = st.warn.on("reconnecting " + strconv.Itoa(s.Attempts))
	case model.StateFailed:
		dot = st.err.on("✕")
		state = st.err.on("failed")
	case model.StateEnded:
		state = st.muted.on("ended")
	case "":
		dot = st.accent.on("●")
	}
	name := model.Sanitize(s.Name)
	if name == "" {
		name = model.Sanitize(s.Source)
	}
	label := dot + " "
	if s.Source != "" && s.Name != s.Source {
		label += st.muted.on(model.Sanitize(s.Source) + " ")
	}
	label += cut(name, 28)
	if state != "" {
		label += " " + state
	}
	switch detail {
	case 2:
		label += st.muted.on(" · " + formatCount(s.Events) + " ev · " + strconv.Itoa(s.Calls) + " calls")
	case 1:
		label += st.muted.on(" · " + formatCount(s.Events) + " ev")
	}
	return label
}

func (m *tableModel) renderTable(b *strings.Builder) {
	h := m.rowsShown()
	m.compactFlags = m.width < compactFlagsWidth
	cols := layoutColumns(m.width, m.contentWidths(h))
	st := &m.st
	var hdr strings.Builder
	hdr.WriteString(strings.Repeat(" ", markerWidth))
	for i, c := range cols {
		if i > 0 {
			hdr.WriteByte(' ')
		}
		if c.right {
			hdr.WriteString(fitRight(c.title, c.width))
		} else {
			hdr.WriteString(fit(c.title, c.width))
		}
	}
	b.WriteString(st.colHeader.on(fit(hdr.String(), m.width)))
	b.WriteByte('\n')

	if len(m.rows) == 0 {
		m.renderEmptyTable(b, h)
		return
	}
	// Virtualised: only the rows in the window are rendered. Lines the
	// calls leave free say why a source failed, if one did.
	end := min(len(m.rows), m.offset+h)
	var below []string
	if free := h - (end - m.offset) - 1; free > 0 {
		below = m.sourceProblems(m.width)
		if len(below) > free {
			below = below[:free]
		}
	}
	for i := m.offset; i < m.offset+h; i++ {
		if i > m.offset {
			b.WriteByte('\n')
		}
		switch {
		case i < end:
			m.renderRow(b, m.rows[i], cols, i == m.cursor)
		case i > end && i-end-1 < len(below) && below[i-end-1] != "":
			b.WriteString(fitColored(below[i-end-1], m.width))
		}
	}
}

// contentWidths measures the rows in the window: the table is laid out for
// what is on screen.
func (m *tableModel) contentWidths(h int) contentWidths {
	var w contentWidths
	end := min(len(m.rows), m.offset+h)
	for _, c := range m.rows[min(m.offset, end):end] {
		tool, _ := displayTool(c)
		w.tool = max(w.tool, ansi.StringWidth(model.Sanitize(tool)))
		w.flags = max(w.flags, ansi.StringWidth(m.flagsCell(c, m.compactFlags)))
		if sent, rel := c.SentCount(), c.RelayedCount(); sent > 0 || rel > 0 {
			w.relay = max(w.relay, len(strconv.Itoa(sent))+1+len(strconv.Itoa(rel)))
		}
		w.status = max(w.status, len(c.Status))
		w.elapsed = max(w.elapsed, ansi.StringWidth(m.elapsedText(c)))
	}
	return w
}
