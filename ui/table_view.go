package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// render writes the sources line, the column titles, the rows in the
// window and the status line.
func (m *tableModel) render(b *strings.Builder) {
	renderSourcesLine(b, m.common, m.width)
	b.WriteByte('\n')
	m.renderTable(b)
}

func (m *tableModel) renderTable(b *strings.Builder) {
	m.fitWindow()
	h := m.shown
	lay := layoutColumns(m.width, m.contentWidths())
	cols := lay.cols
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
	} else {
		m.renderRows(b, lay, h)
	}
	for _, l := range m.statusLines() {
		b.WriteByte('\n')
		b.WriteString(fitColored(l, m.width))
	}
}

// renderRows writes the rows in the window (virtualised: only those are
// rendered). Lines the calls leave free say why a source failed, if one did.
func (m *tableModel) renderRows(b *strings.Builder, lay tableLayout, h int) {
	end := m.end()
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
			m.renderRow(b, m.rows[i], lay, i == m.cursor)
		case i > end && i-end-1 < len(below) && below[i-end-1] != "":
			b.WriteString(fitColored(below[i-end-1], m.width))
		}
	}
}

// contentWidths measures the rows in the window: the table is laid out for
// what is on screen.
func (m *tableModel) contentWidths() contentWidths {
	var w contentWidths
	end := m.end()
	task, tasks := "", 0
	for _, c := range m.rows[min(m.offset, end):end] {
		w.tool = max(w.tool, ansi.StringWidth(toolCellText(c)))
		w.flags = max(w.flags, ansi.StringWidth(m.flagsCell(c, true)))
		w.flagsBare = max(w.flagsBare, ansi.StringWidth(m.flagsCell(c, false)))
		if sent, rel := c.SentCount(), c.RelayedCount(); c.Relays && (sent > 0 || rel > 0) {
			w.relay = max(w.relay, len(strconv.Itoa(sent))+1+len(strconv.Itoa(rel)))
		}
		w.status = max(w.status, len(c.Status))
		w.elapsed = max(w.elapsed, ansi.StringWidth(m.elapsedText(c)))
		if tasks == 0 || c.TaskID != task {
			task, tasks = c.TaskID, tasks+1
		}
		w.says = w.says || c.Progress.Message != "" || c.Cause(m.now) != "" ||
			c.Status == model.StatusOK && c.Progress.NPoints == 0 && c.SentCount() == 0
	}
	w.task = tasks > 1
	return w
}
