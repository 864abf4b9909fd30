package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"

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
	return r.source == "" || r.id != "" && strings.Contains(r.source, model.ShortID(r.id))
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
