package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// The `?` help takes the screen under the title: the keys of the part on
// screen (every key each binding answers: fullHelpKeys), then what the
// part shows, glyph by glyph (legend.go). It scrolls when it is taller
// than the terminal; ? or esc closes it.

func (m *Model) footerLines() int { return 1 }

// fullHelpKeyLines are the key columns of the part on screen.
func (m *Model) fullHelpKeyLines() []string {
	m.help.Width = 0 // a column is cut at the edge, never left out
	return strings.Split(m.help.FullHelpView(fullHelpKeys(m.active().FullHelp())), "\n")
}

// keyHelp is a binding as the help line writes it: "enter keeps the filter".
func keyHelp(b key.Binding) string {
	h := fullHelpKeys([][]key.Binding{{b}})[0][0].Help()
	return h.Key + " " + h.Desc
}

// fullHelpLines is the `?` page: the key columns, then the notes, each
// wrapped to the width.
func (m *Model) fullHelpLines() []string {
	var lines []string
	for _, l := range m.fullHelpKeyLines() {
		lines = append(lines, " "+l)
	}
	for _, p := range m.helpNotes() {
		if p == "" {
			lines = append(lines, "")
			continue
		}
		for i, l := range wrapWords(p, max(20, m.width-4)) {
			if i > 0 {
				l = "  " + l // a paragraph's next lines hang under its first
			}
			lines = append(lines, " "+m.st.muted.on(l))
		}
	}
	return lines
}

// helpRoom is the lines the help page has between the title and the footer.
func (m *Model) helpRoom() int { return max(1, m.height-2) }

// renderHelp draws the help page from its scroll position, and its footer.
func (m *Model) renderHelp(b *strings.Builder) {
	lines := m.fullHelpLines()
	room := m.helpRoom()
	m.helpOffset = min(m.helpOffset, max(0, len(lines)-room))
	for i := 0; i < room; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if j := m.helpOffset + i; j < len(lines) {
			b.WriteString(fitColored(lines[j], m.width))
		}
	}
	b.WriteByte('\n')
	left := " " + m.st.muted.on("? or esc closes the help")
	if len(lines) > room {
		left += m.st.muted.on(" · ↑/↓ pgup/pgdn scroll")
	}
	pos := ""
	if len(lines) > room {
		pos = m.st.muted.on(strconv.Itoa(m.helpOffset+1)+"–"+strconv.Itoa(min(len(lines), m.helpOffset+room))+
			" of "+strconv.Itoa(len(lines))) + " "
	}
	joinEnds(b, left, pos, m.width)
}

// onHelpKey scrolls the help page; it says whether msg was a scroll key.
func (m *Model) onHelpKey(msg tea.KeyMsg) bool {
	k := newNavKeys()
	n := len(m.fullHelpLines())
	room := m.helpRoom()
	last := max(0, n-room)
	switch {
	case key.Matches(msg, k.Up):
		m.helpOffset = max(0, m.helpOffset-1)
	case key.Matches(msg, k.Down):
		m.helpOffset = min(last, m.helpOffset+1)
	case key.Matches(msg, k.PageUp):
		m.helpOffset = max(0, m.helpOffset-room+1)
	case key.Matches(msg, k.PageDown):
		m.helpOffset = min(last, m.helpOffset+room-1)
	case key.Matches(msg, k.Top):
		m.helpOffset = 0
	case key.Matches(msg, k.Bottom):
		m.helpOffset = last
	default:
		return false
	}
	return true
}

// wrapWords breaks text at spaces (and commas in long runs) to width cells.
func wrapWords(text string, width int) []string {
	var words []string
	for _, w := range strings.Fields(text) {
		if ansi.StringWidth(w) <= width {
			words = append(words, w)
			continue
		}
		// a long list breaks after its commas, glued back when it fits
		parts := strings.SplitAfter(w, ",")
		cur := ""
		for _, p := range parts {
			if cur != "" && ansi.StringWidth(cur+p) > width {
				words = append(words, cut(cur, width))
				cur = ""
			}
			cur += p
		}
		if cur != "" {
			words = append(words, cut(cur, width))
		}
	}
	return fillLines(words, width)
}

// fillLines puts words, each at most width cells, on lines of width cells,
// one space apart.
func fillLines(words []string, width int) []string {
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
			line += " " + w
		default:
			lines, line = append(lines, line), w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
