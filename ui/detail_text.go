package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// detailText builds the detail view's text: titled sections of label/value lines.
type detailText struct {
	b     strings.Builder
	st    *styles
	width int
	cache *jsonCache // nil: nothing kept
}

const labelWidth = 18

func (d *detailText) section(title, note string) {
	if d.b.Len() > 0 {
		d.b.WriteByte('\n')
	}
	d.b.WriteString(" " + d.st.section.on(title))
	if note != "" {
		d.b.WriteString("  " + note)
	}
	d.b.WriteByte('\n')
}

func (d *detailText) line(s string) {
	d.b.WriteString(s)
	d.b.WriteByte('\n')
}

// kv writes "   label            value"; value is already sanitized/styled.
func (d *detailText) kv(label, value string) {
	d.b.WriteString("   ")
	d.b.WriteString(d.st.label.on(fit(label, labelWidth)))
	d.b.WriteByte(' ')
	// A long value wraps under itself: counts, ids and reasons are read
	// whole, not cut at the edge.
	indent := 3 + labelWidth + 1
	if avail := d.width - indent - 1; avail >= 16 && ansi.StringWidth(value) > avail {
		value = strings.ReplaceAll(ansi.Wrap(value, avail, " /,"), "\n", "\n"+strings.Repeat(" ", indent))
	}
	d.b.WriteString(value)
	d.b.WriteByte('\n')
}

// block writes untrusted multi-line text, sanitized, indented, wrapped to
// the width and bounded to maxLines.
func (d *detailText) block(text string, indent, maxLines int) {
	pad := strings.Repeat(" ", indent)
	w := max(10, d.width-indent-1)
	lines := strings.Split(model.SanitizeBlock(text), "\n")
	n := 0
	for i, l := range lines {
		wrapped := strings.Split(ansi.Hardwrap(l, w, true), "\n")
		for _, wl := range wrapped {
			if n == maxLines {
				rest := len(lines) - i
				d.line(pad + d.st.muted.on("… "+strconv.Itoa(rest)+" more lines"))
				return
			}
			d.line(pad + wl)
			n++
		}
	}
}

// Bounds of JSON shown in the detail view.
const (
	maxJSONBytes      = 32 << 10 // of text that is not JSON (or too big to check)
	maxJSONLines      = 400
	maxJSONValidBytes = 1 << 20 // checked as JSON and indented
)

// jsonBlock writes raw JSON indented (or as text when it is not JSON). The
// lines depend only on the bytes, the indent and the width, so they are
// built once and reused while the detail is redrawn.
func (d *detailText) jsonBlock(raw json.RawMessage, indent int) {
	if len(raw) == 0 {
		d.line(strings.Repeat(" ", indent) + d.st.muted.on("(none)"))
		return
	}
	key := jsonKey{data: &raw[0], size: len(raw), indent: indent, width: d.width}
	if s, ok := d.cache.get(key); ok {
		d.b.WriteString(s)
		return
	}
	start := d.b.Len()
	if len(raw) <= maxJSONValidBytes && json.Valid(raw) {
		d.indentedJSON(raw, indent)
	} else {
		d.rawJSON(raw, indent)
	}
	d.cache.put(key, strings.Clone(d.b.String()[start:]))
}

// indentedJSON writes the first maxJSONLines lines of valid JSON, wrapped
// to the width; only the lines kept are built.
func (d *detailText) indentedJSON(raw json.RawMessage, indent int) {
	pad := strings.Repeat(" ", indent)
	w := max(10, d.width-indent-1)
	n, full := 0, false
	stop := indentJSON(raw, func(l *jsonLine) bool {
		text := model.Sanitize(string(l.text))
		for wl := range strings.SplitSeq(ansi.Hardwrap(text, w, true), "\n") {
			if n == maxJSONLines {
				full = true
				return false
			}
			d.line(pad + wl)
			n++
		}
		if l.deep == 0 && l.long == 0 {
			return true
		}
		if n == maxJSONLines {
			full = true
			return false
		}
		d.line(pad + strings.Repeat("  ", min(l.depth, maxJSONDepth)) + d.st.muted.on(elidedNote(l)))
		n++
		return true
	})
	switch rest := len(raw) - stop; {
	case rest > 0:
		d.line(pad + d.st.muted.on("… "+formatBytes(rest)+" more not shown"))
	case full: // the last line's wrapped tail
		d.line(pad + d.st.muted.on("… more not shown"))
	}
}

func elidedNote(l *jsonLine) string {
	var parts []string
	if l.deep > 0 {
		parts = append(parts, formatBytes(l.deep)+" nested deeper than "+strconv.Itoa(maxJSONDepth)+" levels")
	}
	if l.long > 0 {
		parts = append(parts, formatBytes(l.long)+" more of this line")
	}
	return "… " + strings.Join(parts, ", ") + " not shown"
}

// rawJSON writes what is not JSON as text, its first maxJSONBytes cut on a
// character boundary.
func (d *detailText) rawJSON(raw json.RawMessage, indent int) {
	src := raw
	cutBytes := 0
	if len(src) > maxJSONBytes {
		src = src[:runeStart(src, maxJSONBytes)]
		cutBytes = len(raw) - len(src)
	}
	d.block(string(src), indent, maxJSONLines)
	if cutBytes > 0 {
		d.line(strings.Repeat(" ", indent) + d.st.muted.on("… "+formatBytes(cutBytes)+" more not shown"))
	}
}

// runeStart backs i up to the start of the UTF-8 character it falls in.
func runeStart(b []byte, i int) int {
	for k := 0; k < utf8.UTFMax && i > 0 && i < len(b) && !utf8.RuneStart(b[i]); k++ {
		i--
	}
	return i
}

// valueLine shows a decoded value on one line, sanitized: a string as
// itself, anything else as its JSON.
func valueLine(v any) string {
	switch x := v.(type) {
	case string:
		return model.Sanitize(x)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return model.Sanitize(string(b))
}
