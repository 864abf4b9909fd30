package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Update handles frames, keys, the mouse and resizes: the root answers the
// keys every view shares and hands the rest to the part on screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		m.onFrame()
		return m, m.tick()
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.help.Width = m.width
		m.input.Width = max(10, m.width-16)
		m.layout()
		return m, nil
	case tea.MouseMsg:
		return m, m.active().onMouse(msg)
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case copiedMsg:
		m.onCopied(msg)
		return m, nil
	}
	return m, nil
}

// layout gives the part on screen what the header and footer leave. The
// table and the task view draw the message on their status line; under the
// detail or the log it takes a line of its own while it shows.
func (m *Model) layout() {
	body := m.height - 1 - m.footerLines()
	m.table.SetSize(m.width, body)
	m.tasks.SetSize(m.width, body)
	msg := m.messageLines()
	m.flashShown = m.message() != ""
	m.detail.SetSize(m.width, body-len(msg))
	m.log.SetSize(m.width, body-len(msg))
}

// messageLines is the message under the detail or the log, while it shows.
func (m *Model) messageLines() []string {
	msg := m.message()
	if msg == "" || m.mode == modeTable || m.mode == modeTasks {
		return nil
	}
	return wrapStatus(m.st.accent.on(msg), m.width, maxStatusLines)
}

func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	if key.Matches(msg, k.ForceQuit) {
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
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help), m.help.ShowAll && key.Matches(msg, m.keys.closeHelp):
		m.help.ShowAll = !m.help.ShowAll
		m.helpOffset = 0
		m.layout()
		return nil
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		if !m.paused {
			m.refresh()
			m.now = m.clock()
		}
		return nil
	case key.Matches(msg, k.Copy):
		return m.copyFocused()
	case m.help.ShowAll:
		m.onHelpKey(msg) // the page scrolls; other keys wait until it closes
		return nil
	}
	req, cmd := m.active().onKey(msg)
	if req != stay {
		return m.answer(req)
	}
	return cmd
}

// answer does what a part's key asked of the root.
func (m *Model) answer(req request) tea.Cmd {
	switch req {
	case openDetail:
		if c := m.table.selected(); c != nil {
			m.openDetail(c)
		}
	case openLog:
		m.openLog()
	case openTasks:
		m.openTasks()
	case openTaskCalls:
		if r := m.tasks.selected(); r != nil {
			m.openCalls(r.key)
		}
	case openCalls:
		m.openCalls("")
	case startFilter:
		m.filtering = true
		m.input.SetValue(m.table.filter.Text)
		m.input.CursorEnd()
		m.layout()
		return m.input.Focus()
	case goBack:
		switch {
		case m.mode != modeTable:
			m.closeView()
		case !m.table.filter.Empty():
			m.table.setFilter("")
		case m.table.scope != "":
			m.openTasks() // the task this table showed
		}
	}
	return nil
}

func (m *Model) onFilterKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.filterKeys.Apply):
		m.endFilter()
		return nil
	case key.Matches(msg, m.filterKeys.Clear):
		m.endFilter()
		m.table.setFilter("")
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != m.table.filter.Text {
		m.table.setFilter(m.input.Value())
	}
	return cmd
}

func (m *Model) endFilter() {
	m.filtering = false
	m.input.Blur()
	m.layout()
}
