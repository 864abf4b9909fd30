//go:build unix

package recordfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// victim is a file a planted link points at, and checks it is untouched.
func victim(t *testing.T) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(path, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != "precious\n" {
			t.Errorf("the link's target now holds %q (%v)", b, err)
		}
	}
}

// isLinkTo checks a link to target is still at path, left alone.
func isLinkTo(t *testing.T, path, target string) {
	t.Helper()
	if got, err := os.Readlink(path); err != nil || got != target {
		t.Errorf("%s: %q, %v; want the planted link left as it was", path, got, err)
	}
}

// TestLinkPlantedBeforeARotationNotFollowed: a link put at the recording's
// name between two rotations (in a shared directory, by someone who can
// remove the file there) is not written through nor moved: the rotation
// says the file is no longer the recording's, and the recording stops;
// what it wrote before stays in its parts.
func TestLinkPlantedBeforeARotationNotFollowed(t *testing.T) {
	target, untouched := victim(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	r, err := Create(path, 1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 15 { // one rotation: a part of ten lines
		r.Write(line(i, 100))
	}
	os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 15; i < 30 && werr == nil; i++ {
		_, werr = r.Write(line(i, 100))
	}
	if werr == nil || !strings.Contains(werr.Error(), "is no longer the file this recording was writing") || !strings.Contains(werr.Error(), "the recording stops here") {
		t.Fatalf("write after the plant: %v", werr)
	}
	if _, err := r.Write(line(99, 100)); err == nil {
		t.Error("the recording went on writing")
	}
	untouched()
	isLinkTo(t, path, target)
	if parts := Parts(path); len(parts) != 1 {
		t.Errorf("parts: %v", parts)
	}
}

// TestLinkPlantedWhileRotatingNotFollowed: a link put at the name in the
// moment between moving the full part aside and making the new one is not
// written through: the new part is made with O_EXCL, and the recording
// says what it found and stops.
func TestLinkPlantedWhileRotatingNotFollowed(t *testing.T) {
	target, untouched := victim(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	beforeNewPart = func() {
		if err := os.Symlink(target, path); err != nil {
			t.Error(err)
		}
	}
	defer func() { beforeNewPart = func() {} }()
	r, err := Create(path, 1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var werr error
	for i := 0; i < 30 && werr == nil; i++ {
		_, werr = r.Write(line(i, 100))
	}
	if werr == nil || !strings.Contains(werr.Error(), "appeared at this name") || !strings.Contains(werr.Error(), "nothing written through it") {
		t.Fatalf("write after the plant: %v", werr)
	}
	untouched()
	isLinkTo(t, path, target)
	if lines := len(readPart(t, Parts(path))); lines != 10 {
		t.Errorf("the full part holds %d lines, want 10", lines)
	}
}

func readPart(t *testing.T, parts []string) []string {
	t.Helper()
	if len(parts) != 1 {
		t.Fatalf("parts: %v", parts)
	}
	b, err := os.ReadFile(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestCreateRefusesAnotherUsersFile: a link or a file another user placed
// at the name before the recording starts is refused, left as it was. (A
// test can give a file to another user only as root.)
func TestCreateRefusesAnotherUsersFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	target, untouched := victim(t)
	dir := t.TempDir()
	link, file := filepath.Join(dir, "link.jsonl"), filepath.Join(dir, "file.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("theirs\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, file} {
		if err := os.Lchown(p, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		_, err := Create(p, 1000, 5)
		if err == nil || !strings.Contains(err.Error(), "belongs to user 4242, not to you") {
			t.Errorf("%s: %v", p, err)
		}
	}
	untouched()
	isLinkTo(t, link, target)
	if b, _ := os.ReadFile(file); string(b) != "theirs\n" {
		t.Errorf("their file now holds %q", b)
	}
}

// TestCreateRefusesALink: a link of the user's own at the name is not
// rotated through either (the caller writes it as it is).
func TestCreateRefusesALink(t *testing.T) {
	target, untouched := victim(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	os.Symlink(target, path)
	if _, err := Create(path, 1000, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Create through a link: %v", err)
	}
	untouched()
}

// TestRacingPlanterNeverWritesThrough: someone planting a link at the
// name whenever it is free, as fast as they can, while the recording
// rotates (lumberjack, so raced, wrote the recording into the target):
// the target is untouched, and the recording stops, saying why.
func TestRacingPlanterNeverWritesThrough(t *testing.T) {
	target, untouched := victim(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	r, err := Create(path, 4096, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				os.Symlink(target, path)
			}
		}
	}()
	var werr error
	deadline := time.Now().Add(3 * time.Second)
	for werr == nil && time.Now().Before(deadline) {
		_, werr = r.Write(line(0, 1024))
	}
	close(stop)
	<-done
	if werr == nil || !strings.Contains(werr.Error(), "nothing written through it") {
		t.Errorf("after 3 s of planting: %v", werr)
	}
	untouched()
}
