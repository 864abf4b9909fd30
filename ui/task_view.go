package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// taskModel is the task view (`t`): one row a task, in the order the tasks
// were first seen, and the selected task in words under them.
type taskModel struct {
	*common
	listWindow
	keys  taskKeys
	bar   progress.Model
	index taskIndex

	width, height int
	selectedKey   string
}

func newTaskModel(c *common, g *globalKeys) taskModel {
	return taskModel{common: c, keys: newTaskKeys(g), bar: newBar()}
}

func (m *taskModel) ShortHelp() []key.Binding  { return m.keys.ShortHelp() }
func (m *taskModel) FullHelp() [][]key.Binding { return m.keys.FullHelp() }
func (m *taskModel) giveWay() []key.Binding    { return m.keys.giveWay() }

func (m *taskModel) SetSize(width, height int) {
	m.width, m.height = width, height
	m.fitWindow()
}

func (m *taskModel) fitWindow() {
	m.resize(len(m.index.rows), m.height-(tableTop-1)-len(m.statusLines()))
}

// open shows the task view with the cursor on the task key names.
func (m *taskModel) open(key string) {
	m.build()
	if key != "" {
		m.selectedKey = key
	}
	m.keepCursor()
}

// build regroups the snapshot's calls; the cursor stays on its task.
func (m *taskModel) build() {
	m.index.build(m.snap)
	m.keepCursor()
}

func (m *taskModel) keepCursor() {
	m.n = len(m.index.rows)
	i := m.cursor
	for j, r := range m.index.rows {
		if r.key == m.selectedKey {
			i = j
			break
		}
	}
	m.setCursor(i)
}

func (m *taskModel) setCursor(i int) {
	m.set(i)
	if r := m.selected(); r != nil {
		m.selectedKey = r.key
	}
	m.fitWindow()
}

func (m *taskModel) selected() *taskRow {
	if m.cursor >= 0 && m.cursor < len(m.index.rows) {
		return m.index.rows[m.cursor]
	}
	return nil
}

// focused: `y` copies calls, and a task is not one.
func (m *taskModel) focused() *model.Call { return nil }

func (m *taskModel) onKey(msg tea.KeyMsg) (request, tea.Cmd) {
	k := &m.keys
	if m.onNavKey(&k.navKeys, msg) {
		m.setCursor(m.cursor)
		return stay, nil
	}
	switch {
	case key.Matches(msg, k.Open):
		if m.selected() != nil {
			return openTaskCalls, nil
		}
	case key.Matches(msg, k.Calls), key.Matches(msg, k.Back):
		return openCalls, nil
	case key.Matches(msg, k.Log):
		return openLog, nil
	}
	return stay, nil
}

func (m *taskModel) onMouse(msg tea.MouseMsg) tea.Cmd {
	m.listWindow.onMouse(msg, tableTop)
	m.setCursor(m.cursor)
	return nil
}

// appendStatus: the tasks by state, and the position.
func (m *taskModel) appendStatus(right []string) []string {
	if n := m.stateCounts(); n != "" {
		right = append(right, n)
	}
	pos := "0/0"
	if n := len(m.index.rows); n > 0 {
		pos = strconv.Itoa(m.cursor+1) + "/" + strconv.Itoa(n)
	}
	return append(right, m.st.muted.on(pos))
}

// Task view columns.
const (
	taskStateWidth = len(taskCompleted)
	taskNowMin     = 16
)

// taskColumns is the task view's layout at one width.
type taskColumns struct {
	glyph                      bool // the state as a glyph (narrow)
	source, counts, warn, last int  // 0: not drawn
	calls, now                 int
}

// render writes the sources line, the column titles, the rows and the
// status line.
func (m *taskModel) render(b *strings.Builder) {
	st := &m.st
	renderSourcesLine(b, m.common, m.width)
	b.WriteByte('\n')
	m.fitWindow()
	cols := m.columns()
	hdr := "  " + fit(stateTitle(cols.glyph), m.stateWidth(cols)) + " " + fit("TASK", 8)
	if cols.source > 0 {
		hdr += " " + fit("FROM", cols.source)
	}
	hdr += " " + fit("NOW", cols.now) + " " + fitRight("CALLS", cols.calls) + " " + fitRight("FAIL", cols.counts) +
		" " + fitRight("WARN", cols.warn)
	if cols.last > 0 {
		hdr += " " + fitRight("LAST", cols.last)
	}
	b.WriteString(st.colHeader.on(fit(hdr, m.width)))
	for i := m.offset; i < m.offset+m.shown; i++ {
		b.WriteByte('\n')
		switch {
		case i < m.end():
			m.renderTask(b, m.index.rows[i], cols, i == m.cursor)
		case i == 0:
			pad := max(0, (m.width-24)/2)
			b.WriteString(st.muted.on(fit(strings.Repeat(" ", pad)+"waiting for tasks and calls…", m.width)))
		}
	}
	for _, l := range m.statusLines() {
		b.WriteByte('\n')
		b.WriteString(fitColored(l, m.width))
	}
}

func stateTitle(glyph bool) string {
	if glyph {
		return " "
	}
	return "STATE"
}

func (m *taskModel) stateWidth(c taskColumns) int {
	if c.glyph {
		return 1
	}
	return taskStateWidth
}

// columns sizes the task view's columns for the rows on screen.
func (m *taskModel) columns() taskColumns {
	c := taskColumns{calls: len("CALLS"), counts: len("FAIL"), warn: len("WARN")}
	src, last := 0, 0
	for _, r := range m.index.rows[min(m.offset, m.end()):m.end()] {
		if !namedAfterTask(r) {
			src = max(src, ansi.StringWidth(model.Sanitize(r.source)))
		}
		c.calls = max(c.calls, len(strconv.Itoa(r.done)+"/"+strconv.Itoa(r.calls)))
		last = max(last, ansi.StringWidth(m.lastText(r)))
	}
	if src > 0 { // no column when every source is named after its task
		src = min(max(src, len("FROM")), 24)
	}
	last = max(last, len("LAST"))
	used := func() int {
		n := markerWidth + m.stateWidth(c) + 1 + 8 + 1 + c.calls + 1 + c.counts + 1 + c.warn + 1
		if c.source > 0 {
			n += c.source + 1
		}
		if c.last > 0 {
			n += c.last + 1
		}
		return n
	}
	c.source, c.last = src, last
	for _, giveWay := range []func(){
		func() { c.last = 0 },
		func() { c.source = 0 },
		func() { c.glyph = true },
	} {
		if m.width-used() >= causeWant {
			break
		}
		giveWay()
	}
	c.now = max(taskNowMin, m.width-used())
	return c
}

// renderTask writes one task as one line of m.width cells.
func (m *taskModel) renderTask(b *strings.Builder, r *taskRow, c taskColumns, sel bool) {
	st := &m.st
	var line strings.Builder
	if sel {
		line.WriteString("▌ ")
	} else {
		line.WriteString("  ")
	}
	p := m.statePaint(r.state)
	if c.glyph {
		line.WriteString(p.on(m.stateGlyph(r.state)))
	} else {
		line.WriteString(p.on(fit(r.state, taskStateWidth)))
	}
	line.WriteByte(' ')
	if r.id == "" {
		line.WriteString(st.muted.on(fit("—", 8)))
	} else {
		line.WriteString(fit(shortID(model.Sanitize(r.id)), 8))
	}
	if c.source > 0 {
		line.WriteString(" " + st.muted.on(fit(model.Sanitize(r.source), c.source)))
	}
	line.WriteString(" " + m.nowCell(r, c.now))
	line.WriteString(" " + fitRight(strconv.Itoa(r.done)+"/"+strconv.Itoa(r.calls), c.calls))
	fail := fitRight(strconv.Itoa(r.failed), c.counts)
	if r.failed > 0 {
		fail = st.err.on(fail)
	} else {
		fail = st.muted.on(fail)
	}
	line.WriteString(" " + fail)
	warn := fitRight(strconv.Itoa(r.warnings), c.warn)
	if r.warnings > 0 {
		warn = st.warn.on(warn)
	} else {
		warn = st.muted.on(warn)
	}
	line.WriteString(" " + warn)
	if c.last > 0 {
		line.WriteString(" " + st.muted.on(fitRight(m.lastText(r), c.last)))
	}
	if !sel {
		b.WriteString(fitColored(line.String(), m.width))
		return
	}
	b.WriteString(st.selected.Render(fit(ansi.Strip(line.String()), m.width)))
}

// nowCell is the call running now with its progress; when none runs, how
// the task ended, or its latest call's outcome.
func (m *taskModel) nowCell(r *taskRow, w int) string {
	st := &m.st
	c := r.now
	switch {
	case c != nil && c.Status == model.StatusRunning:
		tool, _ := displayTool(c)
		tool = cut(model.Sanitize(tool), max(8, w/3))
		more := ""
		if r.running > 1 {
			more = " +" + strconv.Itoa(r.running-1)
		}
		rest := w - ansi.StringWidth(tool) - ansi.StringWidth(more) - 1
		return st.text.on(tool) + st.accent.on(more) + " " + m.progressOf(c, rest)
	case r.said != "" && r.state != taskRunning:
		return m.statePaint(r.state).on(fit(wire(r.said), w))
	case c != nil:
		tool, _ := displayTool(c)
		s := statusGlyph(c.Status, m.wallNow) + " " + model.Sanitize(tool)
		if cause := callCause(c, m.now); cause != "" {
			s += ": " + cause
		}
		return st.status(c.Status).on(fit(s, w))
	}
	return st.muted.on(fit(wire(r.said), w))
}

// progressOf is a running call's bar, counts and message in w cells.
func (m *taskModel) progressOf(c *model.Call, w int) string {
	if w <= 0 {
		return ""
	}
	p := &c.Progress
	var s string
	used := 0
	if p.HasTotal {
		barW := min(max(w/4, 6), 16)
		pct := 0.0
		if p.Total > 0 {
			pct = min(max(p.Progress/p.Total, 0), 1)
		}
		m.bar.Width = barW
		s = m.bar.ViewAs(pct) + " "
		used = barW + 1
	} else {
		s = m.st.run.on(spinnerFrame(m.wallNow)) + " "
		used = ansi.StringWidth(spinnerFrame(m.wallNow)) + 1
	}
	text := ""
	if c.SentCount() > 0 || p.NPoints > 0 {
		text = progressCounts(p)
	}
	if p.Message != "" {
		text = strings.TrimSpace(text + " " + wire(p.Message))
	}
	if used >= w {
		return fitColored(s, w)
	}
	return s + m.st.muted.on(fit(text, w-used))
}

// lastText is how long ago the task last moved.
func (m *taskModel) lastText(r *taskRow) string {
	if r.last.IsZero() {
		return ""
	}
	d := m.now.Sub(r.last)
	if d < 0 {
		d = 0
	}
	return formatDuration(d) + " ago"
}

func (m *taskModel) statePaint(state string) paint {
	switch state {
	case taskRunning:
		return m.st.run
	case taskCompleted:
		return m.st.ok
	case taskFailed:
		return m.st.err
	case taskWaiting:
		return m.st.warn
	}
	return m.st.muted
}

// stateGlyph is a task state in one cell: the calls' glyphs where they
// mean the same, ◌ waiting and · idle.
func (m *taskModel) stateGlyph(state string) string {
	switch state {
	case taskRunning:
		return runningGlyph(m.wallNow)
	case taskCompleted:
		return "✓"
	case taskFailed:
		return "✕"
	case taskCancelled:
		return "⊘"
	case taskWaiting:
		return "~"
	}
	return "○"
}

// statusLines are the selected task in words (or the message showing).
func (m *taskModel) statusLines() []string {
	n := statusRoom(m.height)
	if msg := m.message(); msg != "" {
		return wrapStatus(m.st.accent.on(msg), m.width, n)
	}
	r := m.selected()
	if r == nil {
		return make([]string, min(n, 1))
	}
	st := &m.st
	sep := st.muted.on(" · ")
	parts := []string{m.statePaint(r.state).on(m.stateGlyph(r.state) + " " + r.state)}
	if r.id != "" {
		parts = append(parts, st.bold.on("task "+model.Sanitize(r.id)))
	} else {
		parts = append(parts, st.bold.on("calls without a task"))
	}
	if r.source != "" && !namedAfterTask(r) {
		parts = append(parts, model.Sanitize(r.source))
	}
	if r.said != "" {
		parts = append(parts, m.statePaint(r.state).on(wire(r.said)))
	}
	calls := model.Plural(r.calls, "call") + ": " + strconv.Itoa(r.running) + " running, " +
		strconv.Itoa(r.done-r.failed) + " ok, " + strconv.Itoa(r.failed) + " failed"
	parts = append(parts, calls)
	if r.warnings > 0 {
		parts = append(parts, st.warn.on("⚠ "+model.Plural(r.warnings, "warning")))
	}
	return wrapStatus(strings.Join(parts, sep), m.width, n)
}

// namedAfterTask says whether a task's source names it already (a feed
// named by its task id): its FROM would say the TASK again.
func namedAfterTask(r *taskRow) bool {
	return r.source == "" || r.id != "" && strings.Contains(r.source, shortID(r.id))
}

// stateCounts are the tasks by state, for the footer.
func (m *taskModel) stateCounts() string {
	n := m.index.counts()
	var parts []string
	for _, s := range []string{taskRunning, taskWaiting, taskCompleted, taskFailed, taskCancelled, taskIdle} {
		if n[s] > 0 {
			parts = append(parts, m.statePaint(s).on(strconv.Itoa(n[s])+" "+s))
		}
	}
	return strings.Join(parts, m.st.muted.on(" · "))
}
