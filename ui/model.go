// Package ui is toolscope's live screen: a Bubble Tea program that redraws
// from store snapshots on a frame tick, one row a call, and the detail of one
// call. It reads the store and never writes to it.
package ui

import (
	"io"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
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
	// "" saves nothing. Run sets a directory under the system's temp dir.
	CopyDir string
}

const maxFPS = 30

type viewMode int

const (
	modeTable viewMode = iota
	modeDetail
	modeLog
)

// Model is the screen's tea.Model. It is used through a pointer: Update
// changes it in place and returns it.
type Model struct {
	store *model.Store
	opts  Options
	st    styles
	keys  keyMap

	help     help.Model
	input    textinput.Model
	viewport viewport.Model
	bar      progress.Model

	width, height int
	now           time.Time
	sessionNow    time.Time
	wallNow       time.Time // drives the spinner, which turns even on a session clock
	frame         time.Duration

	snap    *model.Snapshot
	waiting uint64 // events applied to the store but not yet shown (paused)
	paused  bool
	rate    rateMeter

	// the table
	rows       []*model.Call // filtered view of snap.Calls (may alias it)
	rowsBuf    []*model.Call
	filter     filterQuery
	filtering  bool
	follow     bool
	cursor     int
	offset     int
	selectedID string
	running    int
	// compactFlags: the table is narrow, a valid token is flagged ✓
	compactFlags bool

	// the detail view
	mode        viewMode
	detailID    string
	detailCall  *model.Call
	detailBuilt time.Time
	detailWidth int
	detailText  string    // the viewport's content, to skip an unchanged rebuild
	detailSet   bool      // the viewport holds detailText (the log shares it)
	jsonCache   jsonCache // the detail's JSON blocks
	pendingOpen string

	flash      string
	flashUntil time.Time
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
		store:       store,
		opts:        opts,
		st:          newStyles(),
		keys:        newKeyMap(),
		help:        help.New(),
		input:       textinput.New(),
		viewport:    viewport.New(80, 20),
		width:       80,
		height:      24,
		frame:       time.Second / time.Duration(opts.FPS),
		follow:      true,
		pendingOpen: opts.OpenCall,
	}
	m.bar = progress.New(progress.WithoutPercentage(), progress.WithSolidFill(string(pickColor(colorRun))),
		// lipgloss's profile honours NO_COLOR; progress's own default does not.
		progress.WithColorProfile(lipgloss.ColorProfile()))
	m.bar.EmptyColor = string(pickColor(colorBarBG))
	m.bar.Full, m.bar.Empty = '━', '─'
	m.input.Prompt = "/"
	m.input.PromptStyle = lipgloss.NewStyle().Foreground(colorAccent)
	m.input.PlaceholderStyle = lipgloss.NewStyle().Foreground(colorMuted)
	m.input.Placeholder = "tool: task: status: source: flag: or text"
	m.input.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor is noise in a monitor
	m.viewport.KeyMap = viewport.KeyMap{}       // keys are ours; the viewport only takes the wheel
	m.help.ShortSeparator = "  "
	m.refresh()
	m.now = m.clock()
	m.wallNow = opts.Now()
	return m
}

// pickColor resolves an adaptive colour for components that take one hex.
func pickColor(c lipgloss.AdaptiveColor) string {
	if lipgloss.HasDarkBackground() {
		return c.Dark
	}
	return c.Light
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
	if d := m.now.Sub(m.detailBuilt); m.mode == modeDetail && (d >= time.Second || d <= -time.Second) {
		m.buildDetail(false) // relative times ("exp in 4m") move with the clock
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

// refresh takes a new snapshot and re-derives the table.
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
	m.applyFilter()
	running := 0
	for _, c := range m.snap.Calls {
		if c.Status == model.StatusRunning {
			running++
		}
	}
	m.running = running
	if m.pendingOpen != "" {
		if c := m.snap.FindCall(m.pendingOpen); c != nil {
			m.pendingOpen = ""
			m.selectCall(c.ID)
			m.openDetail(c)
		}
	}
	if m.mode == modeLog {
		m.buildLog()
	}
	if m.mode == modeDetail {
		if c := m.findCall(m.detailID); c != nil && c != m.detailCall {
			m.detailCall = c
			m.buildDetail(false)
		}
	}
}

// findCall looks a call up by ID, trying the selected row first.
func (m *Model) findCall(id string) *model.Call {
	if m.cursor >= 0 && m.cursor < len(m.rows) && m.rows[m.cursor].ID == id {
		return m.rows[m.cursor]
	}
	return m.snap.FindCall(id)
}

// applyFilter rebuilds the visible rows and keeps the cursor on its call.
func (m *Model) applyFilter() {
	if m.filter.empty() {
		m.rows = m.snap.Calls
	} else {
		rows := m.rowsBuf[:0]
		for _, c := range m.snap.Calls {
			if m.filter.match(c) {
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

func (m *Model) setCursor(i int) {
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

func (m *Model) selectCall(id string) {
	for i, c := range m.rows {
		if c.ID == id {
			m.follow = false
			m.setCursor(i)
			return
		}
	}
}

func (m *Model) scrollToCursor() {
	h := m.tableRows()
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

func (m *Model) selected() *model.Call {
	if m.cursor >= 0 && m.cursor < len(m.rows) {
		return m.rows[m.cursor]
	}
	return nil
}

func (m *Model) setFlash(s string) {
	m.flash = s
	m.flashUntil = m.opts.Now().Add(3 * time.Second)
}
