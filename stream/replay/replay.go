// Package replay plays a recorded session (JSON lines, as --record and
// --output json write them) back into a sink, with its original timing.
package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"toolscope/model"
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
}

// Run replays the file into sink and returns when it has been played, or
// when ctx ends. A missing file is an error; a malformed line becomes a
// warning naming its line number and the rest still plays.
func Run(ctx context.Context, path string, opts Options, sink model.Sink) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	if opts.Name == "" {
		opts.Name = filepath.Base(path)
	}
	return Play(ctx, f, opts, sink)
}

// Play replays JSON lines from r.
func Play(ctx context.Context, r io.Reader, opts Options, sink model.Sink) error {
	status := func(state, detail string) {
		sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: opts.Name,
			Kind: model.KindSourceStatus, State: state, Detail: detail})
	}
	status(model.StateConnected, "replaying")
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var prev time.Time
	lineNo, played, bad := 0, 0, 0
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(trimSpace(line)) == 0 {
			continue
		}
		ev, err := model.DecodeLine(line)
		if err != nil {
			bad++
			sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceReplay, SourceName: opts.Name,
				Kind: model.KindWarning, Code: "malformed_line", Message: fmt.Sprintf("line %d: %v", lineNo, err)})
			continue
		}
		if err := wait(ctx, prev, ev.Time, opts.Speed); err != nil {
			return err
		}
		if !ev.Time.IsZero() {
			prev = ev.Time
		}
		sink.Emit(ev)
		played++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d is longer than %d bytes", lineNo+1, MaxLineBytes)
		}
		status(model.StateFailed, err.Error())
		return fmt.Errorf("replay: %w", err)
	}
	if played == 0 && bad > 0 {
		// Not a recording at all (a log, the wrong file): say so, exit 1.
		err := fmt.Errorf("no line is a toolscope event (%d malformed lines)", bad)
		status(model.StateFailed, err.Error())
		return fmt.Errorf("replay: %w", err)
	}
	status(model.StateEnded, fmt.Sprintf("%d events, %d malformed lines", played, bad))
	return nil
}

func wait(ctx context.Context, prev, next time.Time, speed float64) error {
	if speed <= 0 || prev.IsZero() || next.IsZero() || !next.After(prev) {
		return ctx.Err()
	}
	gap := min(next.Sub(prev), MaxGap)
	t := time.NewTimer(time.Duration(float64(gap) / speed))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
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
