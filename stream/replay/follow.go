package replay

import (
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
// written in two parts is read whole. It ends with ctx's error. A file cut
// shorter (rewritten from the start) is read again from its start.
type followReader struct {
	ctx  context.Context
	f    *os.File
	poll time.Duration
	off  int64
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		n, err := r.f.Read(p)
		r.off += int64(n)
		if n > 0 {
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if fi, serr := r.f.Stat(); serr == nil && fi.Size() < r.off {
			if _, err := r.f.Seek(0, io.SeekStart); err != nil {
				return 0, err
			}
			r.off = 0
			continue
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
