package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"toolscope/model"
)

// A calm palette in the k9s spirit: one accent, muted chrome, colour only
// where it carries meaning (status, verdicts, problems).
var (
	colorAccent = lipgloss.AdaptiveColor{Light: "#1d4ed8", Dark: "#7aa2f7"}
	colorMuted  = lipgloss.AdaptiveColor{Light: "#6b7280", Dark: "#737aa2"}
	colorText   = lipgloss.AdaptiveColor{Light: "#1f2937", Dark: "#c0caf5"}
	colorOK     = lipgloss.AdaptiveColor{Light: "#15803d", Dark: "#9ece6a"}
	colorError  = lipgloss.AdaptiveColor{Light: "#b91c1c", Dark: "#f7768e"}
	colorRun    = lipgloss.AdaptiveColor{Light: "#0e7490", Dark: "#7dcfff"}
	colorWarn   = lipgloss.AdaptiveColor{Light: "#a16207", Dark: "#e0af68"}
	colorLate   = lipgloss.AdaptiveColor{Light: "#c2410c", Dark: "#ff9e64"}
	// The selection is named per profile: automatic 256-colour degradation
	// of a dark blue lands on teal.
	colorSelBG = lipgloss.CompleteAdaptiveColor{
		Light: lipgloss.CompleteColor{TrueColor: "#dbeafe", ANSI256: "189", ANSI: "7"},
		Dark:  lipgloss.CompleteColor{TrueColor: "#2f3b5e", ANSI256: "237", ANSI: "4"},
	}
	colorBarBG = lipgloss.AdaptiveColor{Light: "#d1d5db", Dark: "#3b4261"}
)

// paint is a style reduced to the escape sequences around its text, so the
// table can colour hundreds of cells a frame without lipgloss's layout work.
// Under NO_COLOR or an ASCII profile both halves are empty.
type paint struct{ pre, post string }

func newPaint(s lipgloss.Style) paint {
	r := s.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return paint{}
	}
	return paint{pre: r[:i], post: r[i+1:]}
}

func (p paint) on(s string) string {
	if p.pre == "" || s == "" {
		return s
	}
	return p.pre + s + p.post
}

type styles struct {
	title, muted, text, accent, bold    paint
	ok, err, run, warn, late, cancelled paint
	colHeader                           paint
	selected                            lipgloss.Style
	section, label                      paint
	barFull, barEmpty                   string
}

func newStyles() styles {
	fg := func(c lipgloss.TerminalColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return styles{
		title:     newPaint(fg(colorAccent).Bold(true)),
		muted:     newPaint(fg(colorMuted)),
		text:      newPaint(fg(colorText)),
		accent:    newPaint(fg(colorAccent)),
		bold:      newPaint(lipgloss.NewStyle().Bold(true)),
		ok:        newPaint(fg(colorOK)),
		err:       newPaint(fg(colorError)),
		run:       newPaint(fg(colorRun)),
		warn:      newPaint(fg(colorWarn)),
		late:      newPaint(fg(colorLate)),
		cancelled: newPaint(fg(colorMuted)),
		colHeader: newPaint(fg(colorMuted).Bold(true)),
		selected:  lipgloss.NewStyle().Background(colorSelBG).Foreground(colorText).Bold(true),
		section:   newPaint(fg(colorAccent).Bold(true)),
		label:     newPaint(fg(colorMuted)),
	}
}

func (s *styles) status(st model.Status) paint {
	switch st {
	case model.StatusOK:
		return s.ok
	case model.StatusError:
		return s.err
	case model.StatusRunning:
		return s.run
	case model.StatusLate:
		return s.late
	case model.StatusNeedsInput:
		return s.warn
	}
	return s.cancelled
}
