//go:build unix

package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// copyOnce presses y on call_abc with copies going to dir and returns the
// model's flash.
func copyOnce(t *testing.T, dir string) string {
	t.Helper()
	var clip bytes.Buffer
	opts := testOptions(&clip)
	opts.CopyDir = dir
	opts.OpenCall = "call_abc"
	m := newModel(fixtureStore(), opts)
	send(m, tea.WindowSizeMsg{Width: 200, Height: 24})
	cmd := send(m, keyMsgs("y")...)
	if cmd == nil {
		t.Fatal("y returned no command")
	}
	send(m, cmd())
	return m.flash
}

// TestCopyNeverWritesThroughAPlantedLink: a symbolic link planted at the
// copy's name is not followed: the copy takes the next name and the link's
// target is untouched.
func TestCopyNeverWritesThroughAPlantedLink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copies")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "call_abc.json")); err != nil {
		t.Fatal(err)
	}
	flash := copyOnce(t, dir)
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Fatalf("the planted link's target now holds %.40q", b)
	}
	saved := filepath.Join(dir, "call_abc-2.json")
	if b, err := os.ReadFile(saved); err != nil || !bytes.Contains(b, []byte(`"tool_call_id": "call_abc"`)) {
		t.Fatalf("copy not saved to %s: %v; flash %q", saved, err, flash)
	}
	if !strings.Contains(flash, saved) {
		t.Errorf("flash %q does not name %s", flash, saved)
	}
}

// TestCopyRefusesASharedDir: a copy directory others may enter is not
// written into; the flash says why.
func TestCopyRefusesASharedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copies")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	flash := copyOnce(t, dir)
	if !strings.Contains(flash, "copy failed") || !strings.Contains(flash, "is not a private directory: its mode is 0777") {
		t.Errorf("flash %q", flash)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("written into a shared directory: %v", entries)
	}
}
