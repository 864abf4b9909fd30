// Package replay plays a recorded session (JSON lines, as --record and
// --output json write them) back into a sink, with its original timing.
package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// MaxGap bounds one wait between two recorded events: a recording of a feed
// that idled for half an hour should not make the user wait half an hour.
const MaxGap = 5 * time.Second

// MaxLineBytes is the longest line read (a recorded result can be large).
const MaxLineBytes = 64 << 20

// Options of a replay.
type Options struct {
	// Speed scales the recorded timing: 2 plays twice as fast, 0 as fast as
	// possible.
	Speed float64
	// Name of the replay source in its status events (default: the file's base name).
	Name string
	// Follow keeps reading a recording that is still being written (tail
	// -f): what is there plays at once, then each new line as it is
	// written, until ctx ends. Speed is not used.
	Follow bool
	// Poll is how often a followed file is checked at its end (default
	// DefaultPoll).
	Poll time.Duration
}

// Run replays the file into sink and returns when it has been played, or
// when ctx ends. A missing file is an error (followed, it is waited for); a malformed line becomes a
// warning naming its line number and the rest still plays.
func Run(ctx context.Context, path string, opts Options, sink model.Sink) error {
	if opts.Name == "" {
		opts.Name = filepath.Base(path)
	}
	if !opts.Follow {
		set, err := OpenSet(path) // with its older parts, when rotated
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		defer set.Close()
		return Play(ctx, set, opts, sink)
	}
	f, err := openWhenThere(ctx, path, opts, sink)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	r := &followReader{ctx: ctx, path: path, f: f, poll: opts.Poll}
	defer r.close()
	return Play(ctx, r, opts, sink)
}

// Play replays JSON lines from r.
func Play(ctx context.Context, r io.Reader, opts Options, sink model.Sink) error {
	status := func(state, detail string) {
		sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: opts.Name,
			Kind: model.KindSourceStatus, State: state, Detail: detail})
	}
	if opts.Follow {
		opts.Speed = 0 // lines show as they are written
		status(model.StateConnected, "following")
	} else {
		status(model.StateConnected, "replaying")
	}
	lines := newLineReader(r, MaxLineBytes)
	var prev time.Time
	lineNo, played, bad := 0, 0, 0
	for {
		line, size, err := lines.next()
		if err == io.EOF {
			break
		}
		var rewritten *rewrittenError
		if errors.As(err, &rewritten) {
			// A new recording at the followed path: it is read from its
			// start, and an unfinished last line of the old one is said.
			detail := "reading it again from its start: " + rewritten.why
			if size > 0 {
				detail += "; the old file's unfinished last line (" + model.Plural(int(size), "byte") + ") is dropped"
			}
			status(model.StateConnected, detail)
			lines, lineNo = newLineReader(r, MaxLineBytes), 0
			continue
		}
		if err != nil && ctx.Err() != nil {
			status(model.StateEnded, fmt.Sprintf("stopped after %s, %s", model.Plural(played, "event"), model.Plural(bad, "malformed line")))
			return ctx.Err()
		}
		if err != nil {
			status(model.StateFailed, err.Error())
			return fmt.Errorf("replay: %w", err)
		}
		lineNo++
		if line == nil {
			// A line too long to hold is skipped, and the rest plays.
			bad++
			sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: opts.Name,
				Kind: model.KindWarning, Code: string(model.WarnLineTooLong), Message: fmt.Sprintf("line %d: %d bytes, over the %d-byte limit: skipped", lineNo, size, MaxLineBytes)})
			continue
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		ev, err := output.DecodeLine(line)
		if err != nil {
			bad++
			sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: opts.Name,
				Kind: model.KindWarning, Code: string(model.WarnMalformedLine), Message: fmt.Sprintf("line %d: %v", lineNo, err)})
			continue
		}
		// A wire line is written when its exchange ends but dated when it
		// began: it takes no part in the timing.
		if ev.Kind != model.KindWire {
			if err := wait(ctx, prev, ev.Time, opts.Speed); err != nil {
				return err
			}
			if !ev.Time.IsZero() {
				prev = ev.Time
			}
		}
		sink.Emit(ev)
		played++
	}
	if played == 0 && bad > 0 {
		// Not a recording at all (a log, the wrong file): say so, exit 1.
		err := fmt.Errorf("no line is a toolscope event (%s)", model.Plural(bad, "malformed line"))
		status(model.StateFailed, err.Error())
		return fmt.Errorf("replay: %w", err)
	}
	status(model.StateEnded, fmt.Sprintf("%s, %s", model.Plural(played, "event"), model.Plural(bad, "malformed line")))
	return nil
}

func wait(ctx context.Context, prev, next time.Time, speed float64) error {
	if speed <= 0 || prev.IsZero() || next.IsZero() || !next.After(prev) {
		return ctx.Err()
	}
	gap := min(next.Sub(prev), MaxGap)
	return model.Sleep(ctx, time.Duration(float64(gap)/speed))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// lineReader reads lines of at most max bytes; a longer line is read to its
// end and dropped, never held.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its end, or nil and the line's size
// when it is over max. It returns io.EOF after the last line.
func (l *lineReader) next() (line []byte, size int64, err error) {
	l.buf = l.buf[:0]
	keep := true
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += int64(len(chunk))
		if keep && len(l.buf)+len(chunk) > l.max+1 { // +1: the line end
			keep, l.buf = false, l.buf[:0]
		}
		if keep {
			l.buf = append(l.buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && size == 0:
			return nil, 0, io.EOF
		case err != nil && err != io.EOF:
			return nil, size, err
		}
		if !keep {
			return nil, size, nil
		}
		line = l.buf
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if cap(l.buf) > 1<<20 {
			l.buf = nil // a big line's buffer is not kept for the rest
		}
		return line, size, nil
	}
}
