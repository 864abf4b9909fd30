package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// The status line under the table says the selected call in words, whole:
// its status, tool, why it failed (or where it is, or what it returned),
// every flag and its task. A message (what `y` did) takes its place for a
// few seconds. It wraps to at most maxStatusLines lines.

const maxStatusLines = 3

// statusLines are the table's status line(s), each at most m.width cells.
func (m *tableModel) statusLines() []string {
	n := statusRoom(m.height)
	if msg := m.message(); msg != "" {
		return wrapStatus(m.st.accent.on(msg), m.width, n)
	}
	c := m.selected()
	if c == nil {
		return make([]string, min(n, 1))
	}
	return wrapStatus(m.callSummary(c), m.width, n)
}

// statusRoom is how many lines the status line may wrap to in a part of
// height lines (its sources line and column titles included): fewer in a
// short terminal, where rows are scarce, none in one too short for a row.
func statusRoom(height int) int {
	n := min(maxStatusLines, (height-2)/6)
	if height-2 >= 2 {
		n = max(n, 1)
	}
	return max(n, 0)
}

// message is the flash message while it shows, else "".
func (c *common) message() string { return model.Sanitize(c.flash) }

// callSummary is one call in words.
func (m *tableModel) callSummary(c *model.Call) string {
	st := &m.st
	sep := st.muted.on(" · ")
	head := statusGlyph(c.Status, m.wallNow) + " " + string(c.Status) + " " + model.FormatDuration(c.Elapsed(m.now))
	if c.TimeoutMS > 0 {
		head += " of " + model.FormatTimeout(c.TimeoutMS)
	}
	parts := []string{st.status(c.Status).on(head), st.bold.on(model.Sanitize(toolName(c)))}
	switch cause := c.Cause(m.now); {
	case cause != "":
		parts = append(parts, st.status(c.Status).on(cause))
	default:
		if s := m.whereItIs(c); s != "" {
			parts = append(parts, s)
		}
	}
	if flags := m.flagsCell(c, true); flags != "" {
		parts = append(parts, flags)
	}
	if sent, rel := c.SentCount(), c.RelayedCount(); c.Relays && (sent > 0 || rel > 0) {
		parts = append(parts, st.muted.on(strconv.Itoa(sent)+" sent → "+strconv.Itoa(rel)+" relayed"))
	}
	if c.TaskID != "" {
		parts = append(parts, st.muted.on("task "+model.ShortID(c.TaskID)))
	}
	return strings.Join(parts, sep)
}

// whereItIs is a running or finished call's progress and last message, or
// what it returned.
func (m *tableModel) whereItIs(c *model.Call) string {
	p := &c.Progress
	var s string
	if c.SentCount() > 0 || p.NPoints > 0 {
		s = progressCounts(p)
		if p.Message != "" {
			s += " " + wire(p.Message)
		}
		return s
	}
	if a := c.LastAttempt(); a != nil && a.HasResult {
		switch r := &a.Result; {
		case r.TextPreview != "":
			return m.st.muted.on(wire(r.TextPreview))
		case r.TextChars > 0:
			return m.st.muted.on(strconv.Itoa(r.TextChars) + " chars")
		}
	}
	return ""
}

// wrapStatus wraps a styled line to width (one cell of margin each side)
// in at most n lines, the last cut with … when there is more.
func wrapStatus(s string, width, n int) []string {
	if n <= 0 {
		return nil
	}
	w := max(8, width-2)
	lines := strings.Split(ansi.Wrap(s, w, " /"), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1], w-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = " " + l
	}
	return lines
}
