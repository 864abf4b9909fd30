package replay

import (
	"bytes"
	"io"
	"os"

	"toolscope/output/recordfile"
)

// OpenSet opens the recording at path with its older parts before it, as
// one stream of lines, in the order they were written. A part that ends
// without its line end (cut by a crash) does not run into the next.
func OpenSet(path string) (io.ReadCloser, error) {
	last, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	parts := recordfile.Parts(path) // its older parts, oldest first
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
