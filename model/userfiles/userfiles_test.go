//go:build unix

package userfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// private is a new directory of the test's, mode 0700.
func private(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "toolscope")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, dir, name string) string {
	t.Helper()
	f, path, err := Create(dir, name, ".json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("copy"); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCreateMakesAPrivateDirAndFile: a missing directory is made 0700, the
// file 0600.
func TestCreateMakesAPrivateDirAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "toolscope", "copies")
	path := write(t, dir, "call_1")
	if path != filepath.Join(dir, "call_1.json") {
		t.Errorf("path %s", path)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
}

// TestCreateNeverWritesThroughAnExistingName: a file or a symbolic link
// already at the name (planted, or an earlier copy) is left alone: the copy
// takes the next name.
func TestCreateNeverWritesThroughAnExistingName(t *testing.T) {
	dir := private(t)
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "call_1.json")); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(t.TempDir(), "not-yet")
	if err := os.Symlink(dangling, filepath.Join(dir, "call_1-2.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "call_1-3.json"), []byte("earlier"), 0o600); err != nil {
		t.Fatal(err)
	}
	if path := write(t, dir, "call_1"); path != filepath.Join(dir, "call_1-4.json") {
		t.Errorf("written to %s", path)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the link's target now holds %q", b)
	}
	if _, err := os.Lstat(dangling); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was made: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "call_1-3.json")); string(b) != "earlier" {
		t.Errorf("the earlier file now holds %q", b)
	}
}

// TestCreateRefusesASharedDir: a directory others may enter, a symbolic
// link in its place, or one that is not the user's is refused, saying why
// and what to do, and nothing is written.
func TestCreateRefusesASharedDir(t *testing.T) {
	loose := private(t)
	if err := os.Chmod(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "toolscope-1000")
	if err := os.Symlink(private(t), link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		loose: "its mode is 0755: others may plant or read files in it (chmod 700 " + loose + ")",
		link:  "it is a symbolic link",
		file:  "not a directory",
	} {
		_, _, err := Create(dir, "call_1", ".json")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", dir, err, want)
			continue
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: written into: %v", dir, entries)
		}
	}
}

// TestCheckPrivateRefusesAnotherOwner: a directory that belongs to another
// user is refused (a test cannot make one, so the check is given another
// user's id).
func TestCheckPrivateRefusesAnotherOwner(t *testing.T) {
	dir := private(t)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPrivate(dir, fi, os.Geteuid()); err != nil {
		t.Fatalf("own directory refused: %v", err)
	}
	err = checkPrivate(dir, fi, os.Geteuid()+1)
	if err == nil || !strings.Contains(err.Error(), "it belongs to user") || !strings.Contains(err.Error(), "not to you") {
		t.Fatalf("another user's directory: %v", err)
	}
}

// TestStateDir: $XDG_STATE_HOME when absolute, else ~/.local/state;
// $XDG_RUNTIME_DIR for files of one login, when set.
func TestStateDir(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	for env, want := range map[string]string{"/s": "/s/toolscope/copies", "rel": "/home/u/.local/state/toolscope/copies", "": "/home/u/.local/state/toolscope/copies"} {
		t.Setenv("XDG_STATE_HOME", env)
		if got, err := StateDir("copies"); err != nil || got != want {
			t.Errorf("XDG_STATE_HOME=%q: %q, %v; want %q", env, got, err, want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got, _ := RuntimeDir("copies"); got != "/run/user/1000/toolscope/copies" {
		t.Errorf("RuntimeDir = %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, _ := RuntimeDir("copies"); got != "/home/u/.local/state/toolscope/copies" {
		t.Errorf("RuntimeDir without XDG_RUNTIME_DIR = %q", got)
	}
}
