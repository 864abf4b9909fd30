package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// The probe screen's lines around the table: title and column titles above,
// the selected case's message and the summary below, then the footer.
const (
	probeAbove = 2
	probeBelow = 2
)

// probeVerdict is a case's verdict word, coloured.
func (m *ProbeModel) probeVerdict(i int) (string, lipgloss.Style) {
	c := m.cases[i]
	switch {
	case i == m.running():
		return m.spin.View() + " running", m.st.run
	case !c.Done:
		return "·", m.st.muted
	case c.Skipped:
		return "skip", m.st.muted
	case c.Pass:
		return "pass", m.st.ok
	case c.Required:
		return "FAIL", m.st.fail
	}
	return "fail (info)", m.st.warn
}

// View draws the frame: title, then the table or a case's detail, then the
// summary and the footer.
func (m *ProbeModel) View() string {
	lines := []string{m.titleLine()}
	if m.detail {
		lines = append(lines, m.detailHeader(), m.viewport.View())
	} else {
		lines = append(lines, m.tableLines()...)
		lines = append(lines, m.messageLine())
	}
	lines = append(lines, m.summaryLine())
	lines = append(lines, m.footerLines()...)
	return strings.Join(lines, "\n")
}

func (m *ProbeModel) titleLine() string {
	left := m.st.title.Render(" toolscope probe") + m.st.muted.Render(" · ") + model.Sanitize(m.opts.Target)
	if m.opts.Tool != "" {
		left += m.st.muted.Render(" · calling ") + model.Sanitize(m.opts.Tool)
	}
	done := 0
	for _, c := range m.cases {
		if c.Done {
			done++
		}
	}
	right := fmt.Sprintf("%d/%d cases ", done, len(m.cases))
	room := m.width - ansi.StringWidth(right) - 1
	if room < 20 {
		return fit(left, m.width)
	}
	return fit(left, room) + " " + m.st.muted.Render(right)
}

// probeColumns are the table's column widths; msg is 0 when no message
// column fits.
type probeColumns struct{ id, req, expected, actual, verdict, msg int }

func (m *ProbeModel) columns() probeColumns {
	c := probeColumns{id: len("CASE"), req: len("REQ"), expected: len("EXPECTED"), actual: len("200 result"), verdict: len("fail (info)")}
	for _, pc := range m.cases {
		c.id = max(c.id, ansi.StringWidth(model.Sanitize(pc.ID)))
		c.expected = max(c.expected, ansi.StringWidth(model.Sanitize(pc.Expected)))
		c.actual = max(c.actual, ansi.StringWidth(model.Sanitize(pc.Actual)))
	}
	c.id, c.expected, c.actual = min(c.id, 24), min(c.expected, 26), min(c.actual, 16)
	// 2 for the selection mark, 1 between columns.
	used := func() int { return 2 + c.id + 1 + c.req + 1 + c.expected + 1 + c.actual + 1 + c.verdict }
	for over := used() - m.width; over > 0; over = used() - m.width {
		switch {
		case c.expected > 10:
			c.expected = max(10, c.expected-over)
		case c.id > 10:
			c.id = max(10, c.id-over)
		case c.actual > 6:
			c.actual = max(6, c.actual-over)
		default:
			c.verdict = max(4, c.verdict-over)
			if used() > m.width {
				return c
			}
		}
	}
	if room := m.width - used() - 1; room >= 16 {
		c.msg = room
	}
	return c
}

// tableLines are the column titles and the rows on screen, padded to the
// table's height.
func (m *ProbeModel) tableLines() []string {
	cols := m.columns()
	head := "  " + fit("CASE", cols.id) + " " + fit("REQ", cols.req) + " " + fit("EXPECTED", cols.expected) + " " +
		fit("ACTUAL", cols.actual) + " " + fit("VERDICT", cols.verdict)
	if cols.msg > 0 {
		head += " MESSAGE"
	}
	lines := []string{m.st.header.Render(fit(head, m.width))}
	rows := m.tableRows()
	for i := m.offset; i < len(m.cases) && i < m.offset+rows; i++ {
		lines = append(lines, m.row(i, cols))
	}
	for len(lines) < rows+1 {
		lines = append(lines, "")
	}
	return lines
}

func (m *ProbeModel) row(i int, cols probeColumns) string {
	c := m.cases[i]
	req := "no"
	if c.Required {
		req = "yes"
	}
	actual := ""
	if c.Done {
		actual = c.Actual
	}
	verdict, vs := m.probeVerdict(i)
	cells := []string{fit(model.Sanitize(c.ID), cols.id), fit(req, cols.req), fit(model.Sanitize(c.Expected), cols.expected),
		fit(model.Sanitize(actual), cols.actual)}
	msg := ""
	if cols.msg > 0 {
		msg = fit(model.Sanitize(c.Message), cols.msg)
	}
	if i == m.cursor {
		plain := "▌ " + strings.Join(cells, " ") + " " + fit(ansi.Strip(verdict), cols.verdict)
		if msg != "" {
			plain += " " + msg
		}
		return m.st.selected.Render(fit(plain, m.width))
	}
	if c.Done && !c.Pass {
		cells[3] = vs.Render(cells[3])
	}
	line := "  " + strings.Join(cells, " ") + " " + vs.Render(fit(verdict, cols.verdict))
	if msg != "" {
		line += " " + m.st.muted.Render(msg)
	}
	return line
}

// messageLine is the selected case's message (what is wrong, before it ran).
func (m *ProbeModel) messageLine() string {
	if len(m.cases) == 0 {
		return ""
	}
	c := m.cases[m.cursor]
	text := c.Message
	if !c.Done {
		text = "what is wrong: " + c.Title
	}
	return m.st.muted.Render(fit(" "+model.Sanitize(c.ID)+": "+model.Sanitize(text), m.width))
}

// probeCounts are the finished cases by verdict.
type probeCounts struct{ passed, failed, requiredFailed, skipped, done int }

func (m *ProbeModel) counts() probeCounts {
	var n probeCounts
	for _, c := range m.cases {
		switch {
		case !c.Done:
			continue
		case c.Skipped:
			n.skipped++
		case c.Pass:
			n.passed++
		default:
			n.failed++
			if c.Required {
				n.requiredFailed++
			}
		}
		n.done++
	}
	return n
}

// summaryLine counts the cases and, once the run is over, says the exit
// code; a narrow screen gets the short verdict.
func (m *ProbeModel) summaryLine() string {
	tail := ""
	if m.end != nil {
		tail = " · exit " + strconv.Itoa(m.end.ExitCode)
		if m.end.Duration > 0 && m.end.Err == "" {
			tail = " · " + m.end.Duration.Round(time.Millisecond).String() + tail
		}
		tail = m.st.title.Render(tail)
	}
	head := " " + m.summaryHead(false)
	if ansi.StringWidth(head)+ansi.StringWidth(tail) > m.width {
		head = " " + m.summaryHead(true)
	}
	// the exit code is the line's point: it stays when the rest is cut
	return fit(cut(head, m.width-ansi.StringWidth(tail))+tail, m.width)
}

func (m *ProbeModel) summaryHead(short bool) string {
	n := m.counts()
	counts := fmt.Sprintf("%d passed · %d failed · %d skipped", n.passed, n.failed, n.skipped)
	failed := model.Plural(n.requiredFailed, "required case") + " failed"
	pass := "✓ PASS every required case passed"
	if short {
		failed, pass = fmt.Sprintf("%d required failed", n.requiredFailed), "✓ PASS"
	}
	switch {
	case m.end == nil:
		head := m.st.run.Render(m.spin.View()+" probing") + fmt.Sprintf(" %d of %d · ", n.done, len(m.cases)) + counts
		if n.requiredFailed > 0 {
			head += " · " + m.st.fail.Render(failed)
		}
		return head
	case m.end.Err != "" && n.done == 0:
		return m.st.fail.Render("✕ " + model.Sanitize(m.end.Err))
	case m.end.Err != "":
		return m.st.fail.Render("✕ "+model.Sanitize(m.end.Err)) + " · " + counts
	case m.end.ExitCode == 0:
		return m.st.ok.Render(pass) + " · " + counts
	}
	return m.st.fail.Render("✕ FAIL "+failed) + " · " + counts
}

// footerLines are the key help: one line, or the full list with the legend.
func (m *ProbeModel) footerLines() []string {
	if !m.help.ShowAll {
		pos := ""
		if len(m.cases) > 0 {
			pos = fmt.Sprintf("%d/%d ", m.cursor+1, len(m.cases))
		}
		left := fit(" "+m.help.ShortHelpView(m.keys.ShortHelp()), m.width-ansi.StringWidth(pos))
		return []string{left + strings.Repeat(" ", max(0, m.width-ansi.StringWidth(left)-ansi.StringWidth(pos))) + m.st.muted.Render(pos)}
	}
	var lines []string
	for _, l := range strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n") {
		lines = append(lines, fit(" "+l, m.width))
	}
	lines = append(lines, "")
	for _, p := range probeLegend {
		for _, l := range probeWrap(p, max(10, m.width-2)) {
			lines = append(lines, m.st.muted.Render(" "+l))
		}
	}
	// at least one line of the table or the detail stays above it
	if room := max(1, m.height-probeAbove-probeBelow-1); len(lines) > room {
		lines = lines[:room]
	}
	return lines
}

// tableRows is how many cases fit on screen.
func (m *ProbeModel) tableRows() int {
	return max(1, m.height-probeAbove-probeBelow-len(m.footerLines()))
}

// detailHeight is the viewport's height: below the title and the case line,
// above the summary and the footer.
func (m *ProbeModel) detailHeight() int {
	return max(1, m.height-2-1-len(m.footerLines()))
}
