package ui

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// fit cuts s to w cells (ending in …) and pads it with spaces to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// fitRight is fit aligned to the right.
func fitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return strings.Repeat(" ", w-n) + s
}

// cut shortens s to w cells without padding.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// formatCount groups thousands: 12,345.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// formatBytes: 812 B, 12.4 KB, 1.2 MB (decimal units, as the platform's limits are stated).
func formatBytes(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// clock is the table's time of day, always UTC so every viewer agrees.
func clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

// clockMillis is the detail view's time of day.
func clockMillis(t time.Time) string {
	if t.IsZero() {
		return "--:--:--.---"
	}
	return t.UTC().Format("15:04:05.000")
}

// relative says how far t is from now: "in 4m12s", "3m05s ago".
func relative(t, now time.Time) string {
	d := t.Sub(now)
	if d >= 0 {
		if d < time.Second {
			return "now"
		}
		return "in " + model.FormatDuration(d)
	}
	if -d < time.Second {
		return "now"
	}
	return model.FormatDuration(-d) + " ago"
}

// maxWireText bounds a wire string before it is sanitized and laid out: a
// line shows at most a screen's width of it, and a 64 KiB progress message
// repeated on every notification must not cost a frame.
const maxWireText = 1024

// wire is the sanitized head of a string from the wire, cut between
// characters before the sanitizer sees it.
func wire(s string) string {
	if len(s) > maxWireText {
		n := maxWireText
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return model.Sanitize(s)
}
