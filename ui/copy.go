package ui

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
	"toolscope/model/userfiles"
)

// clipboardSequence is the OSC 52 "set clipboard" sequence for payload,
// wrapped for tmux or screen when the screen runs inside one (they pass a
// bare OSC 52 on only when configured to).
func clipboardSequence(payload []byte, mode string) []byte {
	seq := osc52.New(string(payload))
	switch mode {
	case ClipboardTmux:
		// A bare copy reaches the clipboard with tmux's set-clipboard on;
		// the wrapped one with allow-passthrough on. Either may be off.
		return []byte(seq.String() + seq.Tmux().String())
	case ClipboardScreen:
		return []byte(seq.Screen().String())
	}
	return []byte(seq.String())
}

// Clipboard modes (Options.ClipboardMode).
const (
	ClipboardTmux   = "tmux"
	ClipboardScreen = "screen"
)

type copiedMsg struct {
	id    string
	bytes int
	path  string // where the JSON was saved ("" when not)
	clip  string // what can be said of the clipboard ("" when not sent)
	err   error
}

// copyFocused copies the call in focus (the table's selected row or the
// open detail's call; the log has none): to the terminal's clipboard with
// OSC 52, which a terminal may drop without a word, and to a file whose path
// the footer shows, so the copy is never lost.
func (m *Model) copyFocused() tea.Cmd {
	c := m.active().focused()
	if c == nil {
		return nil
	}
	if m.opts.Clipboard == nil && m.opts.CopyDir == "" {
		m.setFlash("no clipboard: not a terminal")
		return nil
	}
	b, err := m.snap.MarshalCallJSON(c, m.now)
	if err != nil {
		m.setFlash("copy failed: " + err.Error())
		return nil
	}
	w, dir, mode, id := m.opts.Clipboard, m.opts.CopyDir, m.opts.ClipboardMode, c.ID
	name := c.ToolCallID // short, and what a user searches for
	if name == "" {
		name = c.ID
	}
	return func() tea.Msg {
		msg := copiedMsg{id: id, bytes: len(b)}
		if dir != "" {
			msg.path, msg.err = saveCopy(dir, name, b)
		}
		if w != nil {
			if _, err := w.Write(clipboardSequence(b, mode)); err != nil && msg.err == nil {
				msg.err = err
			} else if err == nil {
				msg.clip = clipboardNote(mode)
			}
		}
		return msg
	}
}

// saveCopy writes a copied call to a new file dir/<id>.json (<id>-2.json
// when taken, ...) that only the user can read, in a directory only the
// user can enter (userfiles: nothing planted there is written through).
func saveCopy(dir, id string, b []byte) (string, error) {
	f, path, err := userfiles.Create(dir, fileSafe(id), ".json")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// fileSafe turns a call id into a file name: letters, digits, . _ - only.
func fileSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 80 {
			break
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "call"
	}
	return name
}

func (m *Model) onCopied(msg copiedMsg) {
	if msg.err != nil {
		m.setFlash("copy failed: " + msg.err.Error())
		return
	}
	// The file is the copy that is sure; the clipboard is said as far as
	// it is known (clipboardNote).
	var parts []string
	if msg.path != "" {
		parts = append(parts, "saved "+formatBytes(msg.bytes)+" JSON to "+model.Sanitize(msg.path))
	}
	if msg.clip != "" {
		parts = append(parts, msg.clip)
	}
	m.setFlash("y: " + strings.Join(parts, " · "))
}

var _ io.Writer = (*lockedFile)(nil)
