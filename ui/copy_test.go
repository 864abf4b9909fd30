package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestCopySavesAFile: `y` also writes the call's JSON to a file and the
// footer shows its path, at 80 columns; inside tmux the OSC 52 sequence is
// sent bare and wrapped for passthrough.
func TestCopySavesAFile(t *testing.T) {
	var clip bytes.Buffer
	opts := testOptions(&clip)
	opts.CopyDir = filepath.Join(t.TempDir(), "copies")
	opts.ClipboardMode = ClipboardTmux
	opts.OpenCall = "call_abc"
	m := newModel(fixtureStore(), opts)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	cmd := send(m, keyMsgs("y")...)
	if cmd == nil {
		t.Fatal("y returned no command")
	}
	send(m, cmd())
	path := filepath.Join(opts.CopyDir, "call_abc.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc["tool_call_id"] != "call_abc" {
		t.Fatalf("saved file is not the call's JSON: %v %v", err, doc["tool_call_id"])
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("saved file mode %v, want 0600", fi.Mode().Perm())
	}
	if v := m.View(); !strings.Contains(strings.Join(strings.Fields(v), ""), strings.ReplaceAll(path, " ", "")) {
		t.Errorf("the footer does not show %s:\n%s", path, lastLine(v))
	}
	raw := clip.String()
	if !strings.HasPrefix(raw, "\x1b]52;c;") || !strings.Contains(raw, "\x1bPtmux;\x1b\x1b]52;c;") {
		t.Errorf("inside tmux want a bare and a wrapped OSC 52: %q", raw[:min(len(raw), 40)])
	}
	if got := fileSafe("6f1c/call_abc"); got != "6f1c_call_abc" {
		t.Errorf("fileSafe = %q", got)
	}
	if got := fileSafe("../../etc/passwd"); strings.Contains(got, "/") || strings.HasPrefix(got, ".") {
		t.Errorf("fileSafe kept a path: %q", got)
	}
	if clipboardModeFromEnv("/tmp/tmux-0/default,1,0", "screen-256color") != ClipboardTmux ||
		clipboardModeFromEnv("", "screen") != ClipboardScreen || clipboardModeFromEnv("", "xterm") != "" {
		t.Error("clipboard mode from the environment")
	}
}
