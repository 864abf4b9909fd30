package recordfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// line is the i-th line of n bytes with its end.
func line(i, n int) []byte {
	head := fmt.Sprintf("%06d ", i)
	return []byte(head + strings.Repeat("x", n-len(head)-1) + "\n")
}

// readSet is every line of the recording at path, older parts first.
func readSet(t *testing.T, path string) []string {
	t.Helper()
	var lines []string
	for _, p := range append(Parts(path), path) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		f.Close()
	}
	return lines
}

// TestRotatesIntoOrderedParts: parts of at most MaxBytes, whole lines
// each, mode 0600, Keep of them kept, read back in the order written.
func TestRotatesIntoOrderedParts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	r, err := Create(path, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := r.Write(line(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	parts := Parts(path)
	if len(parts) != 3 {
		t.Fatalf("%d parts kept, want 3: %v", len(parts), parts)
	}
	for _, p := range append(parts, path) {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > 1000 || fi.Size()%100 != 0 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v (%v)", filepath.Base(p), fi.Size(), fi.Mode().Perm(), err)
		}
	}
	lines := readSet(t, path)
	if len(lines) != 40 { // four parts of ten lines each: 50 written, the oldest ten removed
		t.Fatalf("%d lines", len(lines))
	}
	for k, l := range lines {
		if !strings.HasPrefix(l, fmt.Sprintf("%06d ", 10+k)) {
			t.Fatalf("line %d is %.7q: out of order", k, l)
		}
	}
}

// TestPartsWithinOneMillisecondKept: parts moved aside faster than the
// clock's millisecond each get a name of their own (lumberjack gave them
// one name, the later replacing the earlier), still in order.
func TestPartsWithinOneMillisecondKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	r, err := Create(path, 100, 1000)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 200 {
		if _, err := r.Write(line(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	t.Logf("200 parts in %v", time.Since(start))
	lines := readSet(t, path)
	if len(lines) != 200 {
		t.Fatalf("%d lines, want 200: parts were replaced", len(lines))
	}
	for k, l := range lines {
		if !strings.HasPrefix(l, fmt.Sprintf("%06d ", k)) {
			t.Fatalf("line %d is %.7q: out of order", k, l)
		}
	}
}

// TestCreateReplacesTheOldRecording: a new recording to a path removes the
// recording there and its older parts; MaxBytes 0 never rotates.
func TestCreateReplacesTheOldRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	other := filepath.Join(dir, "other-2020-01-01T00-00-00.000.jsonl")
	for _, p := range []string{path, PartName("rec.jsonl", time.Now()), other} {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Create(path, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		r.Write(line(i, 100))
	}
	r.Close()
	if parts := Parts(path); len(parts) != 0 {
		t.Errorf("parts: %v", parts)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 100*100 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%v, %v", fi, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another recording's part was removed: %v", err)
	}
}

func TestIsPart(t *testing.T) {
	for name, want := range map[string]bool{
		"stdio-srv-2026-11-30T12-00-00.000.jsonl":  true,
		"rec-2026-11-30T12-00-00.000":              true,
		"stdio-srv-20261130T120000Z-42.jsonl":      false,
		"stdio-srv-20261130T120000Z-42-2.jsonl":    false,
		"rec-2026-11-30T12-00-00.000.jsonl.backup": false,
	} {
		if IsPart(name) != want {
			t.Errorf("IsPart(%q) = %v", name, !want)
		}
	}
	if got := PartName("rec.jsonl", time.Date(2026, 11, 30, 12, 0, 0, 5e6, time.UTC)); got != "rec-2026-11-30T12-00-00.005.jsonl" {
		t.Errorf("PartName: %s", got)
	}
}
