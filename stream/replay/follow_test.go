package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"toolscope/model"
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
