package replay

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"toolscope/model"
)

// DefaultPoll is how often a followed recording is checked for new lines
// once its end is reached.
const DefaultPoll = 50 * time.Millisecond

// followReader reads a file that is still being written (tail -f): at its
// end it waits and reads again, so a reader never sees io.EOF, and a line
// written in two parts is read whole. It ends with ctx's error.
//
// Before each read it makes sure the file is still the one it was reading:
// the same file at the path (device and inode), no shorter than what was
// read, the same first line, the same bytes just before where it reads
// next. A restarted `tap --record FILE` rewrites the file from its start,
// and may have written more than the old run did before the next check:
// its size alone does not tell. A new file is read from its start, and
// Read says so with a *rewrittenError.
type followReader struct {
	ctx  context.Context
	path string
	f    *os.File
	poll time.Duration
	off  int64
	// first is the start of the file's first line as read (up to
	// keptBytes); last the bytes read just before off (up to keptBytes).
	first, last []byte
	firstWhole  bool // first holds the whole first line, or keptBytes of it
}

// keptBytes is how much of the first line, and of what was read last, a
// followReader compares with the file.
const keptBytes = 256

// rewrittenError is what Read returns once when the followed file turned
// out to be a new one: the next Read starts it from its beginning.
type rewrittenError struct{ why string }

func (e *rewrittenError) Error() string { return e.why }

func (r *followReader) Read(p []byte) (int, error) {
	for {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		if why := r.changed(); why != "" {
			if err := r.restart(); err != nil {
				return 0, err
			}
			return 0, &rewrittenError{why: why}
		}
		n, err := r.f.Read(p)
		if n > 0 {
			r.keep(p[:n])
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		t := time.NewTimer(r.poll)
		select {
		case <-r.ctx.Done():
			t.Stop()
			return 0, r.ctx.Err()
		case <-t.C:
		}
	}
}

// keep notes the bytes just read.
func (r *followReader) keep(b []byte) {
	if !r.firstWhole {
		take := b
		if i := bytes.IndexByte(take, '\n'); i >= 0 {
			take, r.firstWhole = take[:i+1], true
		}
		if room := keptBytes - len(r.first); len(take) >= room {
			take, r.firstWhole = take[:room], true
		}
		r.first = append(r.first, take...)
	}
	if len(b) >= keptBytes {
		r.last = append(r.last[:0], b[len(b)-keptBytes:]...)
	} else {
		r.last = append(r.last, b...)
		r.last = r.last[max(0, len(r.last)-keptBytes):]
	}
	r.off += int64(len(b))
}

// changed says why the file is no longer the one read so far ("" when it
// is): another file at the path, or this one cut or rewritten.
//
// The path is checked even before anything was read: a recording started
// after the follower replaces the empty file that was there.
func (r *followReader) changed() string {
	cur, err := r.f.Stat()
	if err != nil {
		return ""
	}
	if at, err := os.Stat(r.path); err == nil && !os.SameFile(at, cur) {
		return "another file is at its path"
	}
	if r.off == 0 {
		return ""
	}
	if cur.Size() < r.off {
		return "it was cut shorter"
	}
	if !r.holds(r.first, 0) || !r.holds(r.last, r.off-int64(len(r.last))) {
		return "it was rewritten"
	}
	return ""
}

// holds says whether the file has want at offset at.
func (r *followReader) holds(want []byte, at int64) bool {
	var buf [keptBytes]byte
	got := buf[:len(want)]
	n, _ := r.f.ReadAt(got, at)
	return bytes.Equal(got[:n], want)
}

// restart reads the file at the path from its start: the same file, or
// the new one there.
func (r *followReader) restart() error {
	if f, err := os.Open(r.path); err == nil {
		r.f.Close()
		r.f = f
	} else if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r.off, r.first, r.last, r.firstWhole = 0, r.first[:0], r.last[:0], false
	return nil
}

// close closes the file read last.
func (r *followReader) close() { r.f.Close() }

// openWhenThere opens a file to follow, waiting for it to appear (the
// follower may start before the recorder): the wait is said once.
func openWhenThere(ctx context.Context, path string, opts Options, sink model.Sink) (*os.File, error) {
	said := false
	for {
		f, err := os.Open(path)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
		if !said {
			said = true
			name := opts.Name
			if name == "" {
				name = filepath.Base(path)
			}
			sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: name,
				Kind: model.KindSourceStatus, State: model.StateConnecting, Detail: "waiting for " + path + " to be created"})
		}
		t := time.NewTimer(max(opts.Poll, DefaultPoll))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
