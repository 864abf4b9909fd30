package replay

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A recording written with --record-max-size is a rotated set: FILE, the
// newest part, and its older parts beside it as NAME-TIMESTAMP.EXT
// (lumberjack's backup names: name-2006-01-02T15-04-05.000.jsonl, UTC).

// backupStamp is the timestamp lumberjack puts in a backup's name.
const backupStamp = `\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}`

// RotatedParts are the older parts of the recording at path, oldest first
// (none for a recording written without rotation).
func RotatedParts(path string) []string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	name := strings.TrimSuffix(base, ext)
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `-(` + backupStamp + `)` + regexp.QuoteMeta(ext) + `$`)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var parts []string
	for _, e := range entries {
		if e.Type().IsRegular() && re.MatchString(e.Name()) {
			parts = append(parts, filepath.Join(dir, e.Name()))
		}
	}
	// The stamp sorts as the time it names (fixed width, UTC).
	sort.Strings(parts)
	return parts
}

// OpenSet opens the recording at path with its older parts before it, as
// one stream of lines, in the order they were written. A part that ends
// without its line end (cut by a crash) does not run into the next.
func OpenSet(path string) (io.ReadCloser, error) {
	last, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	parts := RotatedParts(path)
	if len(parts) == 0 {
		return last, nil
	}
	s := &setReader{files: []*os.File{}}
	for _, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			continue // pruned between the listing and now: the rest still plays
		}
		s.files = append(s.files, f)
	}
	s.files = append(s.files, last)
	readers := make([]io.Reader, 0, 2*len(s.files))
	for i, f := range s.files {
		if i > 0 {
			readers = append(readers, bytes.NewReader([]byte{'\n'})) // a blank line is skipped
		}
		readers = append(readers, f)
	}
	s.Reader = io.MultiReader(readers...)
	return s, nil
}

type setReader struct {
	io.Reader
	files []*os.File
}

func (s *setReader) Close() error {
	for _, f := range s.files {
		f.Close()
	}
	return nil
}
