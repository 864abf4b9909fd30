package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// The `?` help: the keys of the part on screen, every key each binding
// answers (fullHelpKeys), then notes on what the part shows.

func (m *Model) footerLines() int {
	if m.help.ShowAll && !m.filtering {
		return len(m.fullHelpLines())
	}
	return 1
}

// filterHelp explains the `/` syntax under the table's keys.
var filterHelp = []string{
	"filter  tool:NAME task:ID source:tap|feed|NAME status:ok,error,running,cancelled,late",
	"flag:attempt,replayed,valid,rejected,unverified,no-token,img,sc,dropped,offloaded,limit,pii,warning",
	"-TERM negates; plain text matches ids, task, tool, progress message, arguments, result and error text, cancel reason and warnings; every term must match",
	"narrow screens: status ✓ ok ✕ error ⊘ cancelled ! late; flag ✓ valid token; S→R progress sent→relayed",
}

// fullHelpKeyLines are the key columns of the part on screen.
func (m *Model) fullHelpKeyLines() []string {
	m.help.Width = 0 // a column is cut at the edge, never left out
	return strings.Split(m.help.FullHelpView(fullHelpKeys(m.active().FullHelp())), "\n")
}

// helpNotes are the lines under the keys: in the table, how the filter line
// ends and what it takes, and the narrow table's glyphs.
func (m *Model) helpNotes() []string {
	if m.mode != modeTable {
		return nil
	}
	k := &m.filterKeys
	typing := "while typing the filter: " + keyHelp(k.Apply) + " · " + keyHelp(k.Clear)
	return append([]string{typing}, filterHelp...)
}

// keyHelp is a binding as the help line writes it: "enter keeps the filter".
func keyHelp(b key.Binding) string {
	h := fullHelpKeys([][]key.Binding{{b}})[0][0].Help()
	return h.Key + " " + h.Desc
}

// fullHelpLines is the `?` view: the key columns, then the notes.
func (m *Model) fullHelpLines() []string {
	var lines []string
	for _, l := range m.fullHelpKeyLines() {
		lines = append(lines, " "+l)
	}
	notes := m.helpNotes()
	if len(notes) > 0 {
		lines = append(lines, "")
	}
	for _, p := range notes {
		for _, l := range wrapWords(p, max(20, m.width-2)) {
			lines = append(lines, " "+m.st.muted.on(l))
		}
	}
	// Keep at least one line of the table or the detail above it; help
	// that needs more takes the screen instead (helpTakesScreen).
	room := max(1, m.height-tableTop-1)
	if len(lines) > room && !m.helpTakesScreen() {
		lines = lines[:room]
	}
	return lines
}

// helpTakesScreen: the full help does not fit under the table, so it is
// drawn alone under the title, whole as far as the terminal allows.
func (m *Model) helpTakesScreen() bool {
	return m.help.ShowAll && !m.filtering && m.height > 4 && m.helpLineCount() > m.height-tableTop-1
}

// helpLineCount is how many lines the full help has at this width.
func (m *Model) helpLineCount() int {
	n := len(m.fullHelpKeyLines())
	notes := m.helpNotes()
	if len(notes) > 0 {
		n++ // the blank line between
	}
	for _, p := range notes {
		n += len(wrapWords(p, max(20, m.width-2)))
	}
	return n
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
