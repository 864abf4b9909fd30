package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// probeLabelWidth is the width of the detail's labels.
const probeLabelWidth = 15

// detailHeader is the line above the detail: the case and its verdict.
func (m *ProbeModel) detailHeader() string {
	c := m.cases[m.cursor]
	verdict, vs := m.probeVerdict(m.cursor)
	left := m.st.accent.Render("▌ ") + m.st.title.Render(model.Sanitize(c.ID)) + "  " + vs.Render(verdict)
	return fit(left, m.width)
}

// detailContent is a case's detail, wrapped to the screen: the verdict's
// parts, then the request sent and the answer, every string sanitised.
func (m *ProbeModel) detailContent(c model.ProbeCase) string {
	width := max(20, m.width-2)
	var lines []string
	field := func(label, value string) {
		for i, w := range probeWrap(model.Sanitize(value), max(10, width-probeLabelWidth)) {
			l := strings.Repeat(" ", probeLabelWidth)
			if i == 0 {
				l = m.st.muted.Render(fit(label, probeLabelWidth))
			}
			lines = append(lines, " "+l+w)
		}
	}
	block := func(title, note, text string) {
		lines = append(lines, "", " "+m.st.section.Render(title)+m.st.muted.Render(" · "+note))
		if text == "" {
			lines = append(lines, " "+m.st.muted.Render("(none)"))
			return
		}
		for _, l := range strings.Split(strings.TrimRight(model.SanitizeBlock(text), "\n"), "\n") {
			// cut at the width, not at words: the lines are data, kept exact
			for _, w := range strings.Split(ansi.Hardwrap(l, width, true), "\n") {
				lines = append(lines, " "+w)
			}
		}
	}
	required := "no: informative, the exit code does not depend on it"
	if c.Required {
		required = "yes: a failure exits 1"
	}
	field("what is wrong", c.Title)
	field("required", required)
	field("expected", c.Expected)
	switch {
	case !c.Done:
		field("actual", "not run yet")
	case c.Skipped:
		field("actual", "skipped")
	case c.ToolRan:
		field("actual", c.Actual+" · the tool ran")
	default:
		field("actual", c.Actual+" · the tool did not run")
	}
	if c.Done {
		field("message", c.Message)
	}
	if c.Done && !c.Skipped {
		field("took", c.Duration.Round(time.Millisecond).String())
	}
	if !c.Done || c.Skipped {
		return strings.Join(lines, "\n")
	}
	block("REQUEST SENT", "credential and token signature redacted", c.Request)
	block("ANSWER", "the first 4 KiB", c.Answer)
	return strings.Join(lines, "\n")
}

// probeWrap breaks prose at spaces to width cells; a word longer than the
// width is cut. Unlike ansi.Wrap it never breaks at a hyphen, so "-32001"
// and "--strict" stay whole.
func probeWrap(text string, width int) []string {
	var words []string
	for _, word := range strings.Fields(text) {
		words = append(words, strings.Split(ansi.Hardwrap(word, width, false), "\n")...)
	}
	lines := fillLines(words, width)
	if len(lines) == 0 {
		lines = []string{""}
	}
	return lines
}
