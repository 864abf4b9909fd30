package ui

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// doc builds the detail view's text: titled sections of label/value lines.
type doc struct {
	b     strings.Builder
	st    *styles
	width int
}

const labelWidth = 18

func (d *doc) section(title, note string) {
	if d.b.Len() > 0 {
		d.b.WriteByte('\n')
	}
	d.b.WriteString(" " + d.st.section.on(title))
	if note != "" {
		d.b.WriteString("  " + note)
	}
	d.b.WriteByte('\n')
}

func (d *doc) line(s string) {
	d.b.WriteString(s)
	d.b.WriteByte('\n')
}

// kv writes "   label            value"; value is already sanitized/styled.
func (d *doc) kv(label, value string) {
	d.b.WriteString("   ")
	d.b.WriteString(d.st.label.on(fit(label, labelWidth)))
	d.b.WriteByte(' ')
	d.b.WriteString(value)
	d.b.WriteByte('\n')
}

// block writes untrusted multi-line text, sanitized, indented, wrapped to
// the width and bounded to maxLines.
func (d *doc) block(text string, indent, maxLines int) {
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
	maxJSONBytes = 32 << 10
	maxJSONLines = 400
)

// jsonBlock writes raw JSON indented (or as text when it is not JSON).
func (d *doc) jsonBlock(raw json.RawMessage, indent int) {
	if len(raw) == 0 {
		d.line(strings.Repeat(" ", indent) + d.st.muted.on("(none)"))
		return
	}
	src := raw
	cutBytes := 0
	if len(src) > maxJSONBytes {
		cutBytes = len(src) - maxJSONBytes
		src = src[:maxJSONBytes]
	}
	var buf bytes.Buffer
	text := string(src)
	if cutBytes == 0 && json.Indent(&buf, src, "", "  ") == nil {
		text = buf.String()
	}
	d.block(text, indent, maxJSONLines)
	if cutBytes > 0 {
		d.line(strings.Repeat(" ", indent) + d.st.muted.on("… "+formatBytes(cutBytes)+" more not shown"))
	}
}

// compactJSON renders a decoded value on one line, sanitized.
func compactJSON(v any) string {
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
