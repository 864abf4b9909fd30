package ui

import (
	"strconv"
	"strings"

	"toolscope/model"
)

// The event log (`l`) shows what belongs to no call: source states, task
// status, pass-through events and warnings such as malformed input, so
// nothing a source reported is out of sight.

func (m *Model) openLog() {
	m.mode = modeLog
	m.help.ShowAll = false
	m.viewport.Height = m.detailHeight()
	m.buildLog()
	m.viewport.GotoBottom()
}

func (m *Model) buildLog() {
	atBottom := m.viewport.AtBottom()
	m.detailWidth = m.width
	m.viewport.Width = m.width
	st := &m.st
	var b strings.Builder
	other := m.snap.Other
	if len(other) == 0 {
		b.WriteString(" " + st.muted.on("no task, source or warning event yet"))
	}
	for i := range other {
		if i > 0 {
			b.WriteByte('\n')
		}
		e := &other[i]
		line := " " + model.TextLine(*e) // redacted and sanitized
		switch e.Kind {
		case model.KindWarning:
			line = st.warn.on(line)
		case model.KindSourceStatus:
			if e.State == model.StateFailed {
				line = st.err.on(line)
			} else {
				line = st.muted.on(line)
			}
		}
		b.WriteString(line)
	}
	m.viewport.SetContent(b.String())
	m.detailSet = false
	if atBottom {
		m.viewport.GotoBottom()
	}
}

func (m *Model) renderLogLine(b *strings.Builder) {
	n := len(m.snap.Other)
	left := " " + m.st.muted.on("◂ ") + m.st.bold.on("event log") + "  " +
		m.st.muted.on("task, source and warning events that belong to no call, newest last")
	right := m.st.muted.on(strconv.Itoa(n)+" kept") + " "
	m.joinEnds(b, left, right)
}
