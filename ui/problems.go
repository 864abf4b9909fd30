package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A source that failed, is failing or keeps reconnecting says why where the
// calls would be (sourceProblems): its state, then its detail (HTTP status,
// URL, what to check), wrapped whole. The event log has the history; this
// is what a user sees first.

// wrapText breaks plain text into lines of width cells: at spaces where it
// can, inside a long word (a URL) where it must. Nothing is cut off.
func wrapText(text string, width int) []string {
	width = max(width, 8)
	return strings.Split(ansi.Wrap(text, width, "/&?"), "\n")
}

// renderEmptyTable fills h lines when no call is shown: why sources are not
// delivering, else a waiting (or no-match) message in the middle.
func (m *tableModel) renderEmptyTable(b *strings.Builder, h int) {
	st := &m.st
	var lines []string
	if m.filter.Empty() {
		lines = m.sourceProblems(m.width)
		if len(lines) > 0 {
			lines = append([]string{""}, lines...)
		}
	}
	if len(lines) == 0 {
		msg := "waiting for tool calls…"
		switch {
		case !m.filter.Empty():
			msg = "no call matches the filter (esc clears it)"
		case m.scope != "":
			msg = "no call of this task is kept (esc: the tasks)"
		}
		pad := max(0, (m.width-ansi.StringWidth(msg))/2)
		lines = make([]string, max(0, h/2-1)+1)
		lines[len(lines)-1] = st.muted.on(fit(strings.Repeat(" ", pad)+msg, m.width))
	}
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) && lines[i] != "" {
			b.WriteString(fitColored(lines[i], m.width))
		}
	}
}
