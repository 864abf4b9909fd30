package ui

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// ProbeOptions configure the probe screen.
type ProbeOptions struct {
	Target string            // the server's URL, credentials already removed
	Tool   string            // the tool called; "" until the run names it
	Cases  []model.ProbeCase // every case planned, in the order they run
	// Input and Output are the terminal's (nil: stdin and stdout); a test
	// plays the terminal with them.
	Input  io.Reader
	Output io.Writer
}

// ProbeModel is `toolscope probe`'s screen: the cases as rows, filled in as
// each finishes, a detail per case, and the summary with the exit code.
type ProbeModel struct {
	opts   ProbeOptions
	cases  []model.ProbeCase
	end    *model.ProbeEnd // nil while the probe runs
	cursor int
	offset int // the first row on screen
	detail bool

	keys          probeKeyMap
	help          help.Model
	spin          spinner.Model
	viewport      viewport.Model
	st            probeStyles
	width, height int
}

// probeCaseMsg is a finished case; probeEndMsg the end of the run.
type (
	probeCaseMsg model.ProbeCase
	probeEndMsg  model.ProbeEnd
)

// ProbeCaseDone is the message that fills in a finished case's row.
func ProbeCaseDone(c model.ProbeCase) tea.Msg { return probeCaseMsg(c) }

// ProbeEnded is the message that ends the run: the summary shows its exit code.
func ProbeEnded(e model.ProbeEnd) tea.Msg { return probeEndMsg(e) }

// NewProbe is the probe screen for the planned cases, none finished yet.
func NewProbe(opts ProbeOptions) *ProbeModel {
	m := &ProbeModel{
		opts:     opts,
		cases:    append([]model.ProbeCase(nil), opts.Cases...),
		keys:     newProbeKeyMap(),
		help:     help.New(),
		viewport: viewport.New(80, 20),
		st:       newProbeStyles(),
		width:    80,
		height:   24,
	}
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(m.st.run))
	m.viewport.KeyMap = viewport.KeyMap{} // keys are ours
	m.help.ShortSeparator = "  "
	return m
}

// Init starts the spinner.
func (m *ProbeModel) Init() tea.Cmd { return m.spin.Tick }

// Cases are the rows as they stand.
func (m *ProbeModel) Cases() []model.ProbeCase { return append([]model.ProbeCase(nil), m.cases...) }

// End is how the run ended (false: still running).
func (m *ProbeModel) End() (model.ProbeEnd, bool) {
	if m.end == nil {
		return model.ProbeEnd{}, false
	}
	return *m.end, true
}

// Update handles keys, the mouse, the terminal's size, finished cases and
// the spinner.
func (m *ProbeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case probeCaseMsg:
		m.finish(model.ProbeCase(msg))
	case probeEndMsg:
		end := model.ProbeEnd(msg)
		m.end = &end
		if end.Tool != "" {
			m.opts.Tool = end.Tool
		}
	case spinner.TickMsg:
		if m.end != nil { // the run is over: no more frames to draw
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyMsg:
		return m, m.key(msg)
	case tea.MouseMsg:
		m.mouse(msg)
	}
	return m, nil
}

// mouse: the wheel scrolls the detail or moves the selection; a click on a
// row selects it.
func (m *ProbeModel) mouse(msg tea.MouseMsg) {
	if m.detail {
		m.viewport, _ = m.viewport.Update(msg)
		return
	}
	if msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.move(-3)
	case tea.MouseButtonWheelDown:
		m.move(3)
	case tea.MouseButtonLeft:
		if i := msg.Y - probeAbove; i >= 0 && i < m.tableRows() && m.offset+i < len(m.cases) {
			m.cursor = m.offset + i
		}
	}
}

// finish fills in the row of a finished case: the first one of its id not
// done yet (--only may name a case twice), else a new row.
func (m *ProbeModel) finish(c model.ProbeCase) {
	c.Done = true
	for i := range m.cases {
		if m.cases[i].ID == c.ID && !m.cases[i].Done {
			m.cases[i] = c
			if m.detail && i == m.cursor {
				m.setDetail(false)
			}
			return
		}
	}
	m.cases = append(m.cases, c)
}

// running is the row of the case being probed, -1 when none is.
func (m *ProbeModel) running() int {
	if m.end != nil {
		return -1
	}
	for i, c := range m.cases {
		if !c.Done {
			return i
		}
	}
	return -1
}

func (m *ProbeModel) key(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
		return nil
	}
	if m.detail {
		m.detailKey(msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.PageDown):
		m.move(m.tableRows())
	case key.Matches(msg, k.PageUp):
		m.move(-m.tableRows())
	case key.Matches(msg, k.Top):
		m.move(-len(m.cases))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.cases))
	case key.Matches(msg, k.Open) && len(m.cases) > 0:
		m.detail, m.keys.detail = true, true
		m.setDetail(true)
	}
	return nil
}

func (m *ProbeModel) detailKey(msg tea.KeyMsg) {
	if key.Matches(msg, m.keys.Back) {
		m.detail, m.keys.detail = false, false
		return
	}
	scroll(&m.viewport, &m.keys.navKeys, msg)
}

// move moves the selection by n rows and keeps it on screen.
func (m *ProbeModel) move(n int) {
	m.cursor = max(0, min(len(m.cases)-1, m.cursor+n))
	m.scrollToCursor()
}

func (m *ProbeModel) scrollToCursor() {
	rows := m.tableRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
	m.offset = max(0, min(m.offset, len(m.cases)-rows))
}

// layout fits the table window and the detail's viewport to the terminal.
func (m *ProbeModel) layout() {
	m.help.Width = max(0, m.width-2)
	m.scrollToCursor()
	if m.detail {
		m.setDetail(false)
	}
}

// setDetail (re)fills the viewport with the selected case; top scrolls it
// to the start, else the reading position is kept.
func (m *ProbeModel) setDetail(top bool) {
	y := m.viewport.YOffset
	m.viewport.Width, m.viewport.Height = m.width, m.detailHeight()
	m.viewport.SetContent(m.detailContent(m.cases[m.cursor]))
	if top {
		m.viewport.GotoTop()
	} else {
		m.viewport.SetYOffset(y)
	}
}
