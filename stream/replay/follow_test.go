package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
)

func (c *collect) types() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.evs {
		if e.Kind == model.KindEvent {
			out = append(out, e.EventType)
		}
	}
	return out
}

// waitTypes waits up to within for n event types to have been played.
func (c *collect) waitTypes(t *testing.T, n int, within time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := c.types()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: played %v, want %d events", within, got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func eventLine(typ string) string {
	return `{"time":"2026-07-29T10:00:00Z","source":"tap","source_name":"s","kind":"event","event_type":"` + typ + `"}` + "\n"
}

// TestFollowShowsAppendedLines: a followed recording plays what it holds,
// then each line appended (one written in two parts included) within
// 200 ms, until ctx ends.
func TestFollowShowsAppendedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(eventLine("a")+eventLine("b")), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	done := make(chan error, 1)
	go func() { done <- Run(ctx, path, Options{Follow: true, Speed: 1}, &got) }()
	got.waitTypes(t, 2, 2*time.Second)

	line := eventLine("c")
	f.WriteString(line[:20]) // a writer caught mid-line
	time.Sleep(3 * DefaultPoll)
	if n := len(got.types()); n != 2 {
		t.Fatalf("a partial line was played: %v", got.types())
	}
	f.WriteString(line[20:])
	got.waitTypes(t, 3, 200*time.Millisecond)
	f.WriteString(eventLine("d"))
	if types := got.waitTypes(t, 4, 200*time.Millisecond); types[2] != "c" || types[3] != "d" {
		t.Fatalf("played %v", types)
	}

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not stop when ctx ended")
	}
	got.mu.Lock()
	last := got.evs[len(got.evs)-1]
	got.mu.Unlock()
	if last.Kind != model.KindSourceStatus || last.State != model.StateEnded {
		t.Errorf("last event %+v", last)
	}
}

// TestFollowRereadsTruncatedFile: a recording rewritten from its start
// (a new run with the same --record) is followed from its start again.
func TestFollowRereadsTruncatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(eventLine("a")+eventLine("b")), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	go Run(ctx, path, Options{Follow: true}, &got)
	got.waitTypes(t, 2, 2*time.Second)
	if err := os.WriteFile(path, []byte(eventLine("x")), 0o600); err != nil {
		t.Fatal(err)
	}
	if types := got.waitTypes(t, 3, time.Second); types[2] != "x" {
		t.Fatalf("played %v", types)
	}
}

// TestFollowWaitsForTheFile: following a recording not yet created waits
// for it (the recorder may start later), saying so once.
func TestFollowWaitsForTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	done := make(chan error, 1)
	go func() { done <- Run(ctx, path, Options{Follow: true}, &got) }()
	time.Sleep(3 * DefaultPoll)
	if err := os.WriteFile(path, []byte(eventLine("a")), 0o600); err != nil {
		t.Fatal(err)
	}
	got.waitTypes(t, 1, time.Second)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if first := got.evs[0]; first.State != model.StateConnecting || first.Detail != "waiting for "+path+" to be created" {
		t.Errorf("first event %+v", first)
	}
}

// callLines is a recording of n calls (a tool.call and a tool.result
// each), its first line a status stamped at start.
func callLines(start time.Time, n int) []byte {
	var b []byte
	b = append(b, `{"time":"`+start.UTC().Format(time.RFC3339Nano)+`","source":"tap","source_name":"s","kind":"source.status","state":"connected"}`+"\n"...)
	for i := range n {
		id := fmt.Sprintf(`"task_id":"t","tool_call_id":"c%d","tool":"read"`, i)
		b = append(b, `{"time":"2026-07-29T10:00:00Z","source":"tap","source_name":"s","kind":"tool.call",`+id+`}`+"\n"...)
		b = append(b, `{"time":"2026-07-29T10:00:01Z","source":"tap","source_name":"s","kind":"tool.result",`+id+`}`+"\n"...)
	}
	return b
}

func (c *collect) count(kind model.Kind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// TestFollowReadsARewriteThatGrewPastTheOldSize: a recording rewritten
// from its start, larger than it was, without ever being shorter than what
// was read (written over in place, or cut and written between two checks,
// as a restarted `tap --record FILE` does), is read from its start: every
// call of the new one, no malformed line, and the rewrite said.
func TestFollowReadsARewriteThatGrewPastTheOldSize(t *testing.T) {
	for _, how := range []string{"over", "truncate"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			start := time.Now()
			if err := os.WriteFile(path, callLines(start, 28), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got collect
			// A slow poll: the rewrite lands between two checks.
			go Run(ctx, path, Options{Follow: true, Poll: 300 * time.Millisecond}, &got)
			modeltest.WaitFor(t, 2*time.Second, "the first recording", func() bool { return got.count(model.KindToolResult) == 28 })
			time.Sleep(50 * time.Millisecond) // at its end, waiting
			rewrite := callLines(start.Add(time.Second), 31)
			if how == "over" {
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteAt(rewrite, 0)
				f.Close()
			} else if err := os.WriteFile(path, rewrite, 0o600); err != nil {
				t.Fatal(err)
			}
			modeltest.WaitFor(t, 2*time.Second, "the second recording", func() bool { return got.count(model.KindToolResult) == 28+31 })
			if n := got.count(model.KindWarning); n != 0 {
				t.Errorf("%d warnings: %+v", n, got.evs)
			}
			if n := got.count(model.KindToolCall); n != 28+31 {
				t.Errorf("%d calls, want 28 then 31", n)
			}
			got.mu.Lock()
			defer got.mu.Unlock()
			said := false
			for _, e := range got.evs {
				said = said || e.Kind == model.KindSourceStatus && strings.Contains(e.Detail, "reading it again from its start: it was rewritten")
			}
			if !said {
				t.Errorf("the rewrite was not said: %+v", got.evs)
			}
		})
	}
}

// TestFollowReadsTheNewFileAtItsPath: a recording replaced by another file
// (removed and created again, or renamed over) is read from its start.
func TestFollowReadsTheNewFileAtItsPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(eventLine("a")+eventLine("b")), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	go Run(ctx, path, Options{Follow: true}, &got)
	got.waitTypes(t, 2, 2*time.Second)
	// The same length and first line: only the identity tells.
	next := filepath.Join(dir, "next.jsonl")
	if err := os.WriteFile(next, []byte(eventLine("a")+eventLine("c")+eventLine("d")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if types := got.waitTypes(t, 5, time.Second); strings.Join(types, ",") != "a,b,a,c,d" {
		t.Fatalf("played %v", types)
	}
}

// TestFollowReadsTheRecordingThatReplacedAnEmptyFile: a follower started
// on an empty file reads the recording made new at its path (a stdio tap's
// --record removes FILE and makes it again), not the removed file.
func TestFollowReadsTheRecordingThatReplacedAnEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	go Run(ctx, path, Options{Follow: true}, &got)
	time.Sleep(100 * time.Millisecond) // the follower is at the empty file's end
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(eventLine("a")+eventLine("b")), 0o600); err != nil {
		t.Fatal(err)
	}
	if types := got.waitTypes(t, 2, 2*time.Second); strings.Join(types, ",") != "a,b" {
		t.Fatalf("played %v", types)
	}
}

// TestFollowSaysAnUnfinishedLineDropped: the old file's last line, cut
// mid-way by its writer's end, is not glued to the new file's first: it is
// dropped, and said.
func TestFollowSaysAnUnfinishedLineDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(eventLine("a")+eventLine("b")[:30]), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	go Run(ctx, path, Options{Follow: true}, &got)
	got.waitTypes(t, 1, 2*time.Second)
	time.Sleep(3 * DefaultPoll)
	if err := os.WriteFile(path, []byte(eventLine("x")+eventLine("y")+eventLine("z")), 0o600); err != nil {
		t.Fatal(err)
	}
	if types := got.waitTypes(t, 4, time.Second); strings.Join(types, ",") != "a,x,y,z" {
		t.Fatalf("played %v", types)
	}
	if n := got.count(model.KindWarning); n != 0 {
		t.Errorf("%d warnings: %+v", n, got.evs)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	said := false
	for _, e := range got.evs {
		said = said || strings.Contains(e.Detail, "the old file's unfinished last line (30 bytes) is dropped")
	}
	if !said {
		t.Errorf("the dropped line was not said: %+v", got.evs)
	}
}
