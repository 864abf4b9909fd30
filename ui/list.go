package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// listWindow is the cursor and the window of a list drawn row by row (the
// calls table, the task view): only the rows in the window are rendered,
// so the list keeps its own offset rather than a viewport over every row.
type listWindow struct {
	cursor, offset int
	follow         bool // the cursor stays on the newest (last) row
	n              int  // rows in the list
	shown          int  // rows that fit
}

// resize sets how many rows there are and how many fit.
func (l *listWindow) resize(n, shown int) {
	l.n, l.shown = n, max(1, shown)
	l.scroll()
}

// set moves the cursor to row i, clamped, and scrolls it into the window.
func (l *listWindow) set(i int) {
	l.cursor = min(max(i, 0), max(l.n-1, 0))
	l.scroll()
}

// move moves the cursor by d rows; moving stops following.
func (l *listWindow) move(d int) {
	if l.n == 0 {
		return
	}
	l.follow = false
	l.set(l.cursor + d)
}

func (l *listWindow) scroll() {
	h := l.shown
	if l.follow {
		l.offset = max(0, l.n-h)
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	l.offset = min(l.offset, max(0, l.n-h))
	l.offset = max(l.offset, 0)
}

// end is one past the last row in the window.
func (l *listWindow) end() int { return min(l.n, l.offset+l.shown) }

// onNavKey answers the keys that move through a list; it says whether msg
// was one. G (bottom) follows the newest row again.
func (l *listWindow) onNavKey(k *navKeys, msg tea.KeyMsg) bool {
	page := max(1, l.shown-1)
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-page)
	case key.Matches(msg, k.PageDown):
		l.move(page)
	case key.Matches(msg, k.Top):
		l.follow = false
		l.set(0)
	case key.Matches(msg, k.Bottom):
		l.follow = true
		l.set(l.n - 1)
	default:
		return false
	}
	return true
}

// onMouse scrolls with the wheel and selects the row clicked; top is the
// screen line of the first row.
func (l *listWindow) onMouse(msg tea.MouseMsg, top int) {
	if msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		l.move(-3)
	case tea.MouseButtonWheelDown:
		l.move(3)
	case tea.MouseButtonLeft:
		if i := msg.Y - top; i >= 0 && i < l.shown && l.offset+i < l.n {
			l.follow = false
			l.set(l.offset + i)
		}
	}
}
