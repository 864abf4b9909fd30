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

// tableModel is the calls table: the sources line, then one row a call.
// It is virtualised: only the rows in its window are drawn, so it keeps
// its own window (offset, cursor) rather than a viewport over every row.
type tableModel struct {
	*common
	keys tableKeys
	bar  progress.Model

	width, height int
	rows          []*model.Call // filtered view of snap.Calls (may alias it)
	rowsBuf       []*model.Call
	filter        model.Filter
	follow        bool
	cursor        int
	offset        int
	selectedID    string
	running       int
	// compactFlags: the table is narrow, a valid token is flagged ✓
	compactFlags bool
}

func newTableModel(c *common, g *globalKeys) tableModel {
	return tableModel{common: c, keys: newTableKeys(g), bar: newBar(), follow: true}
}

func (m *tableModel) ShortHelp() []key.Binding  { return m.keys.ShortHelp() }
func (m *tableModel) FullHelp() [][]key.Binding { return m.keys.FullHelp() }
func (m *tableModel) giveWay() []key.Binding    { return m.keys.giveWay() }

// SetSize: height holds the sources line and the column titles too.
func (m *tableModel) SetSize(width, height int) {
	m.width, m.height = width, height
	m.scrollToCursor()
}

// rowsShown is how many calls fit.
func (m *tableModel) rowsShown() int { return max(1, m.height-(tableTop-1)) }

// setSnapshot re-derives the rows from a new snapshot.
func (m *tableModel) setSnapshot() {
	m.applyFilter()
	running := 0
	for _, c := range m.snap.Calls {
		if c.Status == model.StatusRunning {
			running++
		}
	}
	m.running = running
}

func (m *tableModel) setFilter(s string) {
	m.filter = model.ParseFilter(s)
	m.filter.Text = s
	m.applyFilter()
}

// applyFilter rebuilds the visible rows and keeps the cursor on its call.
func (m *tableModel) applyFilter() {
	if m.filter.Empty() {
		m.rows = m.snap.Calls
	} else {
		rows := m.rowsBuf[:0]
		for _, c := range m.snap.Calls {
			if m.filter.Match(c) {
				rows = append(rows, c)
			}
		}
		m.rowsBuf, m.rows = rows, rows
	}
	switch {
	case m.follow || m.selectedID == "":
		m.cursor = len(m.rows) - 1
	case m.cursor < len(m.rows) && m.rows[m.cursor].ID == m.selectedID:
	default:
		found := false
		for i, c := range m.rows {
			if c.ID == m.selectedID {
				m.cursor, found = i, true
				break
			}
		}
		if !found {
			m.cursor = min(m.cursor, len(m.rows)-1)
		}
	}
	m.setCursor(m.cursor)
}

func (m *tableModel) setCursor(i int) {
	if i >= len(m.rows) {
		i = len(m.rows) - 1
	}
	if i < 0 {
		i = 0
	}
	m.cursor = i
	if i < len(m.rows) {
		m.selectedID = m.rows[i].ID
	}
	m.scrollToCursor()
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

func (m *tableModel) scrollToCursor() {
	h := m.rowsShown()
	if m.follow {
		m.offset = max(0, len(m.rows)-h)
	}
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	if m.offset > max(0, len(m.rows)-h) {
		m.offset = max(0, len(m.rows)-h)
	}
	if m.offset < 0 {
		m.offset = 0
	}
}

func (m *tableModel) selected() *model.Call {
	if m.cursor >= 0 && m.cursor < len(m.rows) {
		return m.rows[m.cursor]
	}
	return nil
}

func (m *tableModel) focused() *model.Call { return m.selected() }

// moveCursor moves the selection; moving stops following.
func (m *tableModel) moveCursor(d int) {
	if len(m.rows) == 0 {
		return
	}
	m.follow = false
	m.setCursor(m.cursor + d)
}

func (m *tableModel) onKey(msg tea.KeyMsg) (request, tea.Cmd) {
	k := &m.keys
	page := max(1, m.rowsShown()-1)
	switch {
	case key.Matches(msg, k.Up):
		m.moveCursor(-1)
	case key.Matches(msg, k.Down):
		m.moveCursor(1)
	case key.Matches(msg, k.PageUp):
		m.moveCursor(-page)
	case key.Matches(msg, k.PageDown):
		m.moveCursor(page)
	case key.Matches(msg, k.Top):
		m.follow = false
		m.setCursor(0)
	case key.Matches(msg, k.Bottom):
		m.follow = true
		m.setCursor(len(m.rows) - 1)
	case key.Matches(msg, k.Follow):
		m.follow = !m.follow
		if m.follow {
			m.setCursor(len(m.rows) - 1)
		}
	case key.Matches(msg, k.Open):
		return openDetail, nil
	case key.Matches(msg, k.Log):
		return openLog, nil
	case key.Matches(msg, k.Filter):
		return startFilter, nil
	case key.Matches(msg, k.Back):
		return goBack, nil
	}
	return stay, nil
}

func (m *tableModel) onMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.moveCursor(-3)
	case tea.MouseButtonWheelDown:
		m.moveCursor(3)
	case tea.MouseButtonLeft:
		// a click on a row selects it
		if i := msg.Y - tableTop; i >= 0 && i < m.rowsShown() && m.offset+i < len(m.rows) {
			m.follow = false
			m.setCursor(m.offset + i)
		}
	}
	return nil
}

// appendStatus adds the footer's right side: the filter, what it names
// that does not exist, and the position.
func (m *tableModel) appendStatus(right []string) []string {
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
