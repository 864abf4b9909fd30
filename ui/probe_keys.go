package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
)

// probeKeyMap is the probe screen's bindings; help renders it, Update
// matches against it.
type probeKeyMap struct {
	navKeys                // the moves every list and pager of the screen shares
	Open, Back, Help, Quit key.Binding
	detail                 bool
}

func newProbeKeyMap() probeKeyMap {
	return probeKeyMap{
		navKeys: newNavKeys(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:    key.NewBinding(key.WithKeys("esc", "left", "h"), key.WithHelp("esc", "back")), // as the detail's pager
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line footer.
func (k probeKeyMap) ShortHelp() []key.Binding {
	if k.detail {
		return []key.Binding{k.Back, k.Down, k.Up, k.Help, k.Quit}
	}
	return []key.Binding{k.Open, k.Down, k.Up, k.Help, k.Quit}
}

// FullHelp is the `?` view, in columns.
func (k probeKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom},
		{k.PageUp, k.PageDown, k.Open, k.Back},
		{k.Help, k.Quit},
	}
}

// probeLegend explains the verdicts under the full key list.
var probeLegend = []string{
	"pass: the answer is the contract's · FAIL: a required case failed (exit 1)",
	"fail (info): an informative case failed, the exit code does not change (--strict makes idempotency and future iat required)",
	"skip: not applicable (no static credential configured) · enter shows the request sent (secrets redacted) and the first 4 KiB of the answer",
}

// probeStyles are lipgloss styles on the default renderer, whose colour
// profile honours NO_COLOR (and is ASCII when the output is no terminal).
type probeStyles struct {
	title, muted, accent, ok, fail, warn, run, header, section lipgloss.Style
	selected                                                   lipgloss.Style
}

func newProbeStyles() probeStyles {
	fg := func(c lipgloss.TerminalColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return probeStyles{
		title:    fg(colorAccent).Bold(true),
		muted:    fg(colorMuted),
		accent:   fg(colorAccent),
		ok:       fg(colorOK),
		fail:     fg(colorError).Bold(true),
		warn:     fg(colorWarn),
		run:      fg(colorRun),
		header:   fg(colorMuted).Bold(true),
		section:  fg(colorAccent).Bold(true),
		selected: lipgloss.NewStyle().Background(colorSelBG).Foreground(colorText).Bold(true),
	}
}
