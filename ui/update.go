package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Update handles frames, keys, the mouse and resizes.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		m.onFrame()
		return m, m.tick()
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.MouseMsg:
		return m, m.onMouse(msg)
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case copiedMsg:
		m.onCopied(msg)
		return m, nil
	}
	return m, nil
}

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 6)
	m.help.Width = m.width
	m.input.Width = max(10, m.width-16)
	m.viewport.Width = m.width
	m.viewport.Height = m.detailHeight()
	if m.detailWidth != m.width {
		switch m.mode {
		case modeDetail:
			m.buildDetail(false)
		case modeLog:
			m.buildLog()
		}
	}
	m.scrollToCursor()
}

func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if m.filtering {
		return m.onFilterKey(msg)
	}
	// Keys typed faster than one read (a held j, tmux send-keys) arrive as
	// one message with several runes: take them one by one.
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.viewport.Height = m.detailHeight()
		m.scrollToCursor()
		return nil
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		if !m.paused {
			m.refresh()
			m.now = m.clock()
		}
		return nil
	case key.Matches(msg, k.Copy):
		return m.copySelected()
	}
	if m.mode != modeTable {
		return m.onDetailKey(msg)
	}
	return m.onTableKey(msg)
}

func (m *Model) onTableKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	page := max(1, m.tableRows()-1)
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
		if c := m.selected(); c != nil {
			m.openDetail(c)
		}
	case key.Matches(msg, k.Log):
		m.openLog()
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.input.SetValue(m.filter.text)
		m.input.CursorEnd()
		return m.input.Focus()
	case key.Matches(msg, k.Back):
		switch {
		case m.help.ShowAll:
			m.help.ShowAll = false
			m.scrollToCursor()
		case !m.filter.empty():
			m.setFilter("")
		}
	}
	return nil
}

// moveCursor moves the selection; moving stops following unless it lands on
// the newest call.
func (m *Model) moveCursor(d int) {
	if len(m.rows) == 0 {
		return
	}
	m.follow = false
	m.setCursor(m.cursor + d)
}

func (m *Model) onFilterKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEnter:
		m.filtering = false
		m.input.Blur()
		return nil
	case tea.KeyEsc:
		m.filtering = false
		m.input.Blur()
		m.setFilter("")
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != m.filter.text {
		m.setFilter(m.input.Value())
	}
	return cmd
}

func (m *Model) setFilter(s string) {
	m.filter = parseFilter(s)
	m.filter.text = s
	m.applyFilter()
}

func (m *Model) onDetailKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	vp := &m.viewport
	switch {
	case key.Matches(msg, k.Back), msg.Type == tea.KeyLeft, msg.String() == "h":
		if m.help.ShowAll {
			m.help.ShowAll = false
			m.viewport.Height = m.detailHeight()
			return nil
		}
		m.closeDetail()
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown), msg.String() == " ":
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	}
	return nil
}

func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	if m.mode != modeTable {
		var cmd tea.Cmd
		m.viewport, cmd = m.viewport.Update(msg)
		return cmd
	}
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
		if i := msg.Y - tableTop; i >= 0 && i < m.tableRows() && m.offset+i < len(m.rows) {
			m.follow = false
			m.setCursor(m.offset + i)
		}
	}
	return nil
}
