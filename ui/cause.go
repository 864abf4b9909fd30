package ui

import (
	"time"

	"toolscope/model"
)

// Why a call did not end well is model's Call.Cause (the MCP server's
// list_calls says the same): the row shows its head, the status line all
// of it.

// statusGlyph is a status in one cell: the table's status column below
// glyphWidth, the status line and the task view (`?` explains them).
func statusGlyph(s model.Status, now time.Time) string {
	switch s {
	case model.StatusOK:
		return "✓"
	case model.StatusError:
		return "✕"
	case model.StatusCancelled:
		return "⊘"
	case model.StatusLate:
		return "!"
	case model.StatusRunning:
		return runningGlyph(now)
	case model.StatusNeedsInput:
		return "~" // waiting, for the client's input
	}
	return "?"
}

// turning is a one-cell spinner, for where the three-cell one does not fit:
// ASCII, which every font has (◐◓◑◒ are missing from common ones).
var turning = []string{"|", "/", "-", "\\"}

// runningGlyph is "running" in one cell: a spinner that turns with the clock.
func runningGlyph(now time.Time) string {
	n := int64(len(turning))
	return turning[(now.UnixNano()/int64(spin.FPS)%n+n)%n]
}
