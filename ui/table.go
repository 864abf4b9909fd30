package ui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// tableTop is the screen line of the first table row (title, sources,
// column titles above it).
const tableTop = 3

// tableModel is the calls table: the sources line, the column titles, one
// row a call, and the status line of the selected call under them.
type tableModel struct {
	*common
	listWindow
	keys tableKeys
	bar  progress.Model

	width, height int
	rows          []*model.Call // filtered view of snap.Calls (may alias it)
	rowsBuf       []*model.Call
	filter        model.Filter
	// scope keeps the calls of one task (a taskKey; "" shows every call):
	// set when a task is opened from the task view.
	scope      string
	selectedID string
	running    int
	needInput  int // calls waiting for the client's input (a multi-round call)
}

func newTableModel(c *common, g *globalKeys) tableModel {
	return tableModel{common: c, listWindow: listWindow{follow: true}, keys: newTableKeys(g), bar: newBar()}
}

func (m *tableModel) ShortHelp() []key.Binding  { return m.keys.ShortHelp() }
func (m *tableModel) FullHelp() [][]key.Binding { return m.keys.FullHelp() }
func (m *tableModel) giveWay() []key.Binding    { return m.keys.giveWay() }

// SetSize: height holds the sources line, the column titles and the status
// line too.
func (m *tableModel) SetSize(width, height int) {
	m.width, m.height = width, height
	m.fitWindow()
}

// rowsShown is how many calls fit above the status line.
func (m *tableModel) rowsShown() int {
	return max(1, m.height-(tableTop-1)-len(m.statusLines()))
}

// fitWindow sizes the window for the rows and the status line's height,
// which follows the selected call.
func (m *tableModel) fitWindow() { m.resize(len(m.rows), m.rowsShown()) }

// setSnapshot re-derives the rows from a new snapshot.
func (m *tableModel) setSnapshot() {
	m.applyFilter()
	running, needInput := 0, 0
	for _, c := range m.snap.Calls {
		switch c.Status {
		case model.StatusRunning:
			running++
		case model.StatusNeedsInput:
			needInput++
		}
	}
	m.running, m.needInput = running, needInput
}

func (m *tableModel) setFilter(s string) {
	m.filter = model.ParseFilter(s)
	m.filter.Text = s
	m.applyFilter()
}

// setScope shows the calls of one task only ("" for every call).
func (m *tableModel) setScope(task string) {
	if task != m.scope {
		m.scope = task
		m.follow = true
		m.selectedID = ""
	}
	m.applyFilter()
}

// applyFilter rebuilds the visible rows and keeps the cursor on its call.
func (m *tableModel) applyFilter() {
	if m.filter.Empty() && m.scope == "" {
		m.rows = m.snap.Calls
	} else {
		rows := m.rowsBuf[:0]
		for _, c := range m.snap.Calls {
			if (m.scope == "" || taskKey(c) == m.scope) && m.filter.Match(m.snap, c) {
				rows = append(rows, c)
			}
		}
		m.rowsBuf, m.rows = rows, rows
	}
	m.n = len(m.rows)
	switch {
	case m.follow || m.selectedID == "":
		m.cursor = len(m.rows) - 1
	case m.cursor < len(m.rows) && m.rows[m.cursor].ID == m.selectedID:
	default:
		for i, c := range m.rows {
			if c.ID == m.selectedID {
				m.cursor = i
				break
			}
		}
	}
	m.setCursor(m.cursor)
}

func (m *tableModel) setCursor(i int) {
	m.set(i)
	if m.cursor < len(m.rows) {
		m.selectedID = m.rows[m.cursor].ID
	}
	m.fitWindow() // the status line follows the selected call
}

func (m *tableModel) selectCall(id string) {
	for i, c := range m.rows {
		if c.ID == id {
			m.follow = false
			m.setCursor(i)
			return
		}
	}
}

func (m *tableModel) selected() *model.Call {
	if m.cursor >= 0 && m.cursor < len(m.rows) {
		return m.rows[m.cursor]
	}
	return nil
}

func (m *tableModel) focused() *model.Call { return m.selected() }

func (m *tableModel) onKey(msg tea.KeyMsg) (request, tea.Cmd) {
	k := &m.keys
	if m.onNavKey(&k.navKeys, msg) {
		m.setCursor(m.cursor)
		return stay, nil
	}
	switch {
	case key.Matches(msg, k.Follow):
		m.follow = !m.follow
		if m.follow {
			m.setCursor(len(m.rows) - 1)
		}
	case key.Matches(msg, k.Open):
		return openDetail, nil
	case key.Matches(msg, k.Log):
		return openLog, nil
	case key.Matches(msg, k.Tasks):
		return openTasks, nil
	case key.Matches(msg, k.Filter):
		return startFilter, nil
	case key.Matches(msg, k.Back):
		return goBack, nil
	}
	return stay, nil
}

func (m *tableModel) onMouse(msg tea.MouseMsg) tea.Cmd {
	m.listWindow.onMouse(msg, tableTop)
	m.setCursor(m.cursor)
	return nil
}

// appendStatus adds the footer's right side: the task the table keeps, the
// filter, what it names that does not exist, and the position.
func (m *tableModel) appendStatus(right []string) []string {
	if m.scope != "" {
		right = append(right, m.st.accent.on(taskScopeLabel(m.scope)))
	}
	if !m.filter.Empty() {
		right = append(right, m.st.warn.on("/"+model.Sanitize(m.filter.Text)))
	}
	if p := m.filterProblem(); p != "" {
		right = append(right, p)
	}
	pos := "0/0"
	if len(m.rows) > 0 {
		pos = strconv.Itoa(m.cursor+1) + "/" + strconv.Itoa(len(m.rows))
	}
	return append(right, m.st.muted.on(pos))
}

// filterProblem is the first thing the filter names that does not exist.
func (m *tableModel) filterProblem() string {
	if len(m.filter.Problems) == 0 {
		return ""
	}
	return m.st.warn.on("⚠ " + model.Sanitize(filterProblemText(m.filter.Problems[0])))
}
