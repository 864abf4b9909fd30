package ui

import (
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// Options configure the screen.
type Options struct {
	// OpenCall opens this call's detail (a call ID or tool_call_id) as soon
	// as the store holds it.
	OpenCall string
	// Title is shown after the program name in the header (a session, a
	// file name); sanitized before display.
	Title string
	// Now is the clock (default time.Now); tests inject a fixed one.
	Now func() time.Time
	// SessionClock makes the screen's clock the time of the newest event in
	// the store instead of Now: for replays, where wall time means nothing
	// (elapsed times and token expiry read as they did in the session). It
	// turns on by itself once a source of kind "replay" reports.
	SessionClock bool
	// FPS is the frame rate, at most 30 (the default).
	FPS int
	// Clipboard receives the OSC 52 sequence `y` writes. Run points it at
	// the program's own output; nil disables it.
	Clipboard io.Writer
	// ClipboardMode wraps the sequence for a multiplexer: "tmux", "screen"
	// or "" (Run sets it from $TMUX and $TERM).
	ClipboardMode string
	// CopyDir is where `y` also saves the call's JSON (its path is shown);
	// "" saves nothing. Run sets the user's own (userfiles.RuntimeDir).
	CopyDir string
}

const maxFPS = 30

type viewMode int

const (
	modeTable viewMode = iota
	modeDetail
	modeLog
	modeTasks
)

// common is what every part of the screen reads: the styles, and the
// snapshot and clocks the root sets once a frame.
type common struct {
	st      styles
	snap    *model.Snapshot
	now     time.Time // the screen's clock (the session's, for a replay)
	wallNow time.Time // drives the spinner, which turns even on a session clock
	// flash is a message (what `y` did) shown on the status line until
	// flashUntil, when the frame tick clears it.
	flash      string
	flashUntil time.Time
}

// speaksAgentArea: see model.Snapshot.SpeaksAgentArea.
func (c *common) speaksAgentArea(call *model.Call) bool { return c.snap.SpeaksAgentArea(call) }

// component is one part of the screen under the header: it draws in the
// size it is given, answers its own keys and says them in its help.
type component interface {
	help.KeyMap
	giveWay() []key.Binding // footer bindings that leave a narrow terminal, in order
	SetSize(width, height int)
	render(b *strings.Builder) // the part's lines, into the frame
	onKey(msg tea.KeyMsg) (request, tea.Cmd)
	onMouse(msg tea.MouseMsg) tea.Cmd
	appendStatus(right []string) []string // the footer's right side: filter, position
	focused() *model.Call                 // what `y` copies; nil: nothing
}

// request is what a component's key asks of the root: a change of view or
// of what the root owns. It is answered at once, not as a message, so keys
// that arrive together ("g⏎j") act in order.
type request int

const (
	stay       request = iota
	openDetail         // the table's selected call
	openLog
	openTasks     // the task view, on the task in focus
	openTaskCalls // the calls of the task view's selected task
	openCalls     // every call
	startFilter
	goBack // close the help, else clear the filter or return to the table
)

// Model is the screen's tea.Model, the root over the table, the detail and
// the log. It is used through a pointer: Update changes it in place and
// returns it.
type Model struct {
	common
	store *model.Store
	opts  Options
	keys  globalKeys

	help       help.Model
	helpOffset int             // the `?` page's first line shown
	input      textinput.Model // the filter line
	filterKeys filterKeys
	filtering  bool

	table  tableModel
	detail detailModel
	log    logModel
	tasks  taskModel
	mode   viewMode
	// prev is the view the detail or the log returns to.
	prev viewMode

	width, height int
	sessionNow    time.Time
	frame         time.Duration
	waiting       uint64 // events applied to the store but not yet shown (paused)
	paused        bool
	rate          rateMeter
	pendingOpen   string
	flashShown    bool // the message line is laid out under the detail or the log
}

// New makes the screen over a store. The first snapshot is taken at once so
// the first frame already shows what the store holds.
func New(store *model.Store, opts Options) tea.Model {
	return newModel(store, opts)
}

func newModel(store *model.Store, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FPS <= 0 || opts.FPS > maxFPS {
		opts.FPS = maxFPS
	}
	m := &Model{
		common:      common{st: newStyles()},
		store:       store,
		opts:        opts,
		keys:        newGlobalKeys(),
		help:        help.New(),
		input:       textinput.New(),
		filterKeys:  newFilterKeys(),
		width:       80,
		height:      24,
		frame:       time.Second / time.Duration(opts.FPS),
		pendingOpen: opts.OpenCall,
	}
	m.table = newTableModel(&m.common, &m.keys)
	m.detail = newDetailModel(&m.common, &m.keys)
	m.log = newLogModel(&m.common, &m.keys)
	m.tasks = newTaskModel(&m.common, &m.keys)
	m.input.Prompt = "/"
	m.input.PromptStyle = lipgloss.NewStyle().Foreground(colorAccent)
	m.input.PlaceholderStyle = lipgloss.NewStyle().Foreground(colorMuted)
	m.input.Placeholder = "tool: task: status: source: flag: or text"
	m.input.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor is noise in a monitor
	m.help.ShortSeparator = "  "
	m.layout()
	m.refresh()
	m.now = m.clock()
	m.wallNow = opts.Now()
	return m
}

// newBar is the progress bar the table and the detail draw with.
func newBar() progress.Model {
	bar := progress.New(progress.WithoutPercentage(), progress.WithSolidFill(string(pickColor(colorRun))),
		// lipgloss's profile honours NO_COLOR; progress's own default does not.
		progress.WithColorProfile(lipgloss.ColorProfile()))
	bar.EmptyColor = string(pickColor(colorBarBG))
	bar.Full, bar.Empty = '━', '─'
	return bar
}

// pickColor resolves an adaptive colour for components that take one hex.
func pickColor(c lipgloss.AdaptiveColor) string {
	if lipgloss.HasDarkBackground() {
		return c.Dark
	}
	return c.Light
}

// active is the component on screen.
func (m *Model) active() component {
	switch m.mode {
	case modeDetail:
		return &m.detail
	case modeLog:
		return &m.log
	case modeTasks:
		return &m.tasks
	}
	return &m.table
}

type frameMsg time.Time

// Init starts the frame tick.
func (m *Model) Init() tea.Cmd { return m.tick() }

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.frame, func(t time.Time) tea.Msg { return frameMsg(t) })
}

// onFrame is the only place new store state comes in: at most once a frame,
// and only when the store's version moved.
func (m *Model) onFrame() {
	if m.flash != "" && m.opts.Now().After(m.flashUntil) {
		m.flash = "" // even paused: the message is not the frame
	}
	if m.flashShown != (m.flash != "") {
		m.layout() // the message came or went: the parts get their lines back
	}
	v := m.store.Version()
	m.rate.sample(m.opts.Now(), m.snap.Events+int64(v-m.snap.Version))
	if m.paused {
		m.waiting = v - m.snap.Version
		return
	}
	if v != m.snap.Version {
		m.refresh()
	}
	m.now = m.clock()
	m.wallNow = m.opts.Now()
	if m.mode == modeDetail {
		m.detail.onClock() // relative times ("exp in 4m") move with the clock
	}
}

// clock is the screen's time: the injected clock, or the session's.
func (m *Model) clock() time.Time {
	if m.opts.SessionClock {
		return m.sessionNow
	}
	return m.opts.Now()
}

// newestEvent is the time of the latest recorded event the snapshot holds.
// The replay source's own status events are stamped with wall time, so
// they do not count.
func newestEvent(s *model.Snapshot) time.Time {
	var t time.Time
	for _, c := range s.Calls {
		if c.LastUpdate.After(t) {
			t = c.LastUpdate
		}
	}
	for i := len(s.Other) - 1; i >= 0 && i >= len(s.Other)-64; i-- {
		if e := &s.Other[i]; e.Source != model.SourceReplay && e.Time.After(t) {
			t = e.Time
		}
	}
	return t
}

// refresh takes a new snapshot and hands it to the parts.
func (m *Model) refresh() {
	m.snap = m.store.Snapshot()
	m.waiting = 0
	if !m.opts.SessionClock {
		for _, s := range m.snap.Sources {
			if s.Source == model.SourceReplay {
				m.opts.SessionClock = true
			}
		}
	}
	if m.opts.SessionClock {
		m.sessionNow = newestEvent(m.snap)
	}
	m.now = m.clock()
	m.table.setSnapshot()
	if m.pendingOpen != "" {
		if c := m.snap.FindCall(m.pendingOpen); c != nil {
			m.pendingOpen = ""
			m.table.selectCall(c.ID)
			m.openDetail(c)
		}
	}
	switch m.mode {
	case modeLog:
		m.log.build()
	case modeTasks:
		m.tasks.build()
	case modeDetail:
		if c := m.findCall(m.detail.id); c != nil && c != m.detail.call {
			m.detail.setCall(c)
		}
	}
}

// findCall looks a call up by ID, trying the selected row first.
func (m *Model) findCall(id string) *model.Call {
	if c := m.table.selected(); c != nil && c.ID == id {
		return c
	}
	return m.snap.FindCall(id)
}

func (m *Model) openDetail(c *model.Call) {
	m.prev, m.mode = modeTable, modeDetail
	m.help.ShowAll = false
	m.layout()
	m.detail.open(c)
}

func (m *Model) openLog() {
	if m.mode != modeLog {
		m.prev = m.mode
	}
	m.mode = modeLog
	m.help.ShowAll = false
	m.layout()
	m.log.open()
}

// openTasks shows the task view, its cursor on the task of the call in
// focus (or of the calls the table keeps).
func (m *Model) openTasks() {
	key := m.table.scope
	if c := m.table.selected(); key == "" && c != nil {
		key = taskKey(c)
	}
	m.mode = modeTasks
	m.help.ShowAll = false
	m.layout()
	m.tasks.open(key)
}

// openCalls shows the calls table: of one task (esc then returns to the
// task view), or all of them (task "").
func (m *Model) openCalls(task string) {
	m.mode = modeTable
	m.help.ShowAll = false
	m.table.setScope(task)
	m.layout()
}

// closeView leaves the detail or the log for the view it was opened from.
func (m *Model) closeView() {
	switch m.mode {
	case modeDetail:
		m.detail.close()
	case modeLog:
		m.log.close()
	}
	if m.prev == modeTasks {
		m.openTasks()
		return
	}
	m.mode = modeTable
	m.layout()
}

func (m *Model) setFlash(s string) {
	m.flash = s
	m.flashUntil = m.opts.Now().Add(flashFor)
	m.layout()
}

// flashFor is how long a message stays on the status line.
const flashFor = 4 * time.Second
