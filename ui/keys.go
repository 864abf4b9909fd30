package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// Every key the screen answers is a binding in one of these keymaps: the
// root's global keys, the table's, the pagers' (detail and log) and the
// filter line's. Update matches only against them, the footer shows their
// short labels and the `?` screen lists all their keys (fullHelpKeys), so
// no key works unseen.

// globalKeys work in every view.
type globalKeys struct {
	Pause, Copy, Help, Quit, ForceQuit key.Binding
	closeHelp                          key.Binding // esc, while the `?` page shows
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		closeHelp: key.NewBinding(key.WithKeys("esc")),
	}
}

// navKeys move through a list or a page: the table and both pagers.
type navKeys struct {
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
}

func newNavKeys() navKeys {
	return navKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "ctrl+d"), key.WithHelp("pgdn", "page down")),
	}
}

func (n *navKeys) column() []key.Binding {
	return []key.Binding{n.Up, n.Down, n.Top, n.Bottom, n.PageUp, n.PageDown}
}

// tableKeys are the calls table's: move, open, filter, follow, the task
// view, the log.
type tableKeys struct {
	navKeys
	Open, Back, Filter, Follow, Tasks, Log key.Binding
	global                                 *globalKeys
	short, drops                           []key.Binding // built once: the footer is drawn every frame
}

func newTableKeys(g *globalKeys) tableKeys {
	k := tableKeys{
		navKeys: newNavKeys(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Follow:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow")),
		Tasks:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tasks")),
		Log:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "log")),
		global:  g,
	}
	k.short = []key.Binding{k.Open, k.Filter, k.Tasks, k.Follow, g.Pause, g.Copy, k.Log, g.Help, g.Quit}
	// `? help` never gives way: it lists the rest.
	k.drops = []key.Binding{g.Pause, k.Follow, k.Log, g.Copy, k.Filter, g.Quit, k.Tasks, k.Open}
	return k
}

// ShortHelp is the table's footer.
func (k *tableKeys) ShortHelp() []key.Binding { return k.short }

// FullHelp is the table's `?` screen, in columns.
func (k *tableKeys) FullHelp() [][]key.Binding {
	g := k.global
	return [][]key.Binding{
		k.column(),
		{k.Open, k.Back, k.Filter, k.Follow, k.Tasks, k.Log},
		{g.Pause, g.Copy, g.Help, g.Quit},
		{g.ForceQuit}, // its own column: "q quit" stays one short line
	}
}

// giveWay is the footer's bindings in the order they leave a narrow terminal.
func (k *tableKeys) giveWay() []key.Binding { return k.drops }

// taskKeys are the task view's: move, open a task's calls, all calls, the log.
type taskKeys struct {
	navKeys
	Open, Calls, Back, Log key.Binding
	global                 *globalKeys
	short, drops           []key.Binding
}

func newTaskKeys(g *globalKeys) taskKeys {
	k := taskKeys{
		navKeys: newNavKeys(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "its calls")),
		Calls:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "all calls")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Log:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "log")),
		global:  g,
	}
	k.short = []key.Binding{k.Open, k.Calls, g.Pause, k.Log, g.Help, g.Quit}
	k.drops = []key.Binding{g.Pause, k.Log, g.Quit, k.Calls, k.Open}
	return k
}

func (k *taskKeys) ShortHelp() []key.Binding { return k.short }

func (k *taskKeys) FullHelp() [][]key.Binding {
	g := k.global
	return [][]key.Binding{
		k.column(),
		{k.Open, k.Calls, k.Back, k.Log},
		{g.Pause, g.Help, g.Quit, g.ForceQuit},
	}
}

func (k *taskKeys) giveWay() []key.Binding { return k.drops }

// pagerKeys scroll the detail or the event log, and go back to the table.
type pagerKeys struct {
	navKeys
	Back         key.Binding
	copies       bool // `y` copies what the pager shows (the detail's call)
	global       *globalKeys
	short, drops []key.Binding // built once: the footer is drawn every frame
}

func newPagerKeys(g *globalKeys, copies bool) pagerKeys {
	k := pagerKeys{
		navKeys: newNavKeys(),
		Back:    key.NewBinding(key.WithKeys("esc", "left", "h"), key.WithHelp("esc", "back")),
		copies:  copies,
		global:  g,
	}
	k.PageDown = key.NewBinding(key.WithKeys("pgdown", " ", "ctrl+f", "ctrl+d"), key.WithHelp("pgdn", "page down"))
	k.short = []key.Binding{k.Back, k.Down, k.Up, g.Copy, g.Pause, g.Help, g.Quit}
	k.drops = []key.Binding{g.Copy, g.Pause, k.Up, k.Down, g.Quit, k.Back}
	if !copies {
		k.short = append(k.short[:3:3], g.Pause, g.Help, g.Quit)
		k.drops = k.drops[1:]
	}
	return k
}

// ShortHelp is the pager's footer.
func (k *pagerKeys) ShortHelp() []key.Binding { return k.short }

// FullHelp is the pager's `?` screen, in two columns: its first holds the
// longest keys, so the whole fits 80 cells.
func (k *pagerKeys) FullHelp() [][]key.Binding {
	g := k.global
	rest := []key.Binding{k.Back}
	if k.copies {
		rest = append(rest, g.Copy)
	}
	return [][]key.Binding{k.column(), append(rest, g.Pause, g.Help, g.Quit, g.ForceQuit)}
}

func (k *pagerKeys) giveWay() []key.Binding { return k.drops }

// filterKeys end typing the filter (the other keys edit it).
type filterKeys struct {
	Apply, Clear key.Binding
}

func newFilterKeys() filterKeys {
	return filterKeys{
		Apply: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keeps the filter")),
		Clear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clears it")),
	}
}

// keyNames shows a key as the help writes it.
var keyNames = map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn", " ": "space"}

// fullHelpKeys gives each binding its whole list of keys as its label: the
// `?` screen is built from what Update matches, so it cannot leave a key out.
func fullHelpKeys(cols [][]key.Binding) [][]key.Binding {
	out := make([][]key.Binding, len(cols))
	for i, col := range cols {
		out[i] = make([]key.Binding, len(col))
		for j, b := range col {
			names := make([]string, len(b.Keys()))
			for n, k := range b.Keys() {
				if name, ok := keyNames[k]; ok {
					k = name
				}
				names[n] = k
			}
			b.SetHelp(strings.Join(names, "/"), b.Help().Desc)
			out[i][j] = b
		}
	}
	return out
}

// shortHelpFitting is the footer's bindings for width cells: those in
// giveWay leave first, in its order.
func shortHelpFitting(keys, giveWay []key.Binding, width int, view func([]key.Binding) string) []key.Binding {
	for _, g := range giveWay {
		if ansi.StringWidth(view(keys)) <= width {
			break
		}
		for i, b := range keys {
			if b.Help() == g.Help() {
				keys = append(keys[:i:i], keys[i+1:]...)
				break
			}
		}
	}
	return keys
}
