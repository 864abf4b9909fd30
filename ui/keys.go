package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// keyMap holds every binding; help renders it, Update matches against it.
type keyMap struct {
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	Open, Back, Filter, Follow, Pause, Copy key.Binding
	Help, Quit, Log                         key.Binding
	// detail view only
	detail bool
}

func newKeyMap() keyMap {
	return keyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Follow:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow")),
		Pause:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy json")),
		Log:      key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "event log")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line footer.
func (k keyMap) ShortHelp() []key.Binding {
	if k.detail {
		return []key.Binding{k.Back, k.Down, k.Up, k.Copy, k.Pause, k.Help, k.Quit}
	}
	return []key.Binding{k.Open, k.Filter, k.Follow, k.Pause, k.Copy, k.Log, k.Help, k.Quit}
}

// shortHelpFitting is the footer's bindings for width cells: the least used
// give way first; `? help` always stays (it lists the rest).
func (k keyMap) shortHelpFitting(width int, view func([]key.Binding) string) []key.Binding {
	keys := k.ShortHelp()
	giveWay := []key.Binding{k.Log, k.Copy, k.Pause, k.Follow, k.Up, k.Down, k.Filter, k.Quit, k.Open, k.Back}
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

// FullHelp is the `?` view, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Open, k.Back, k.Filter, k.Follow, k.Log},
		{k.Pause, k.Copy, k.Help, k.Quit},
	}
}
