package feed

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"toolscope/model"
)

func TestFeedURL(t *testing.T) {
	cases := []struct{ api, ws, agent, task, want string }{
		{"https://api.example.com", "acme", "a1", "t1", "https://api.example.com/v1/workspaces/acme/agents/a1/tasks/t1/events/stream"},
		{"https://api.example.com/v1/", "acme", "a1", "t1", "https://api.example.com/v1/workspaces/acme/agents/a1/tasks/t1/events/stream"},
		{"http://127.0.0.1:8000", "", "a1", "t1", "http://127.0.0.1:8000/v1/agents/a1/tasks/t1/events/stream"},
		{"https://h", "my ws", "a/1", "t", "https://h/v1/workspaces/my%20ws/agents/a%2F1/tasks/t/events/stream"},
	}
	for _, c := range cases {
		if got := FeedURL(c.api, c.ws, c.agent, c.task); got != c.want {
			t.Errorf("FeedURL(%q,%q,%q,%q) = %q, want %q", c.api, c.ws, c.agent, c.task, got, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	tg, err := resolve(Config{URL: "https://h/v1/workspaces/w/agents/a/tasks/6f1c2d3e-aaaa/events/stream?x=2&a=1"})
	if err != nil {
		t.Fatal(err)
	}
	if tg.stream != "https://h/v1/workspaces/w/agents/a/tasks/6f1c2d3e-aaaa/events/stream?x=2&a=1&include_chunks=false" {
		t.Errorf("stream %s", tg.stream)
	}
	if tg.history != "https://h/v1/workspaces/w/agents/a/tasks/6f1c2d3e-aaaa/events?a=1&x=2" {
		t.Errorf("history %s", tg.history)
	}
	if tg.taskID != "6f1c2d3e-aaaa" || tg.name != "6f1c2d3e" {
		t.Errorf("task %q name %q", tg.taskID, tg.name)
	}

	tg, _ = resolve(Config{URL: "http://h/v1/agents/a/tasks/t/events/stream", IncludeChunks: true, Name: "mine"})
	if tg.stream != "http://h/v1/agents/a/tasks/t/events/stream" || tg.name != "mine" {
		t.Errorf("include chunks: %s %s", tg.stream, tg.name)
	}
	tg, _ = resolve(Config{URL: "http://h/s/tasks/t/events/stream?include_chunks=true"})
	if tg.stream != "http://h/s/tasks/t/events/stream?include_chunks=true" {
		t.Errorf("given include_chunks kept: %s", tg.stream)
	}
	tg, _ = resolve(Config{URL: "http://user:pw@h/feed?token=abc&q=1"})
	if strings.Contains(tg.display, "pw") || strings.Contains(tg.display, "abc") || tg.history != "" || tg.name != "h" {
		t.Errorf("display %s history %q name %q", tg.display, tg.history, tg.name)
	}
	for _, bad := range []string{"", "ftp://h/x", "http:///x", "::"} {
		if _, err := resolve(Config{URL: bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRunBadURL(t *testing.T) {
	var got []model.Event
	err := Run(context.Background(), Config{URL: "ftp://x/y"}, model.SinkFunc(func(e model.Event) { got = append(got, e) }))
	if err == nil || len(got) != 1 || got[0].State != model.StateFailed || !strings.Contains(got[0].Detail, "scheme") {
		t.Fatalf("err %v events %+v", err, got)
	}
}

func TestBackoffDelay(t *testing.T) {
	max := 2 * time.Second
	for n := 1; n <= 40; n++ {
		want := min(250*time.Millisecond<<min(n-1, 20), max)
		for range 50 {
			d := backoffDelay(n, max)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: %v outside [%v, %v]", n, d, want/2, want)
			}
		}
	}
	if d := backoffDelay(1, 20*time.Millisecond); d < 2500*time.Microsecond || d > 5*time.Millisecond {
		t.Fatalf("short max: %v", d)
	}
}

// TestFrameGuard: a body that ends inside a frame gets that frame closed
// under truncatedEvent; one that ends on a blank line is left alone.
func TestFrameGuard(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"event: a\ndata: 1\n\n", "event: a\ndata: 1\n\n"},
		{"event: a\r\ndata: 1\r\n\r\n", "event: a\r\ndata: 1\r\n\r\n"},
		{"event: a\ndata: 1\n\nevent: b\ndata: {\"x", "event: a\ndata: 1\n\nevent: b\ndata: {\"x\nevent: " + truncatedEvent + "\n\n"},
		{"event: a\ndata: 1\n\nevent: b\ndata: 2\n", "event: a\ndata: 1\n\nevent: b\ndata: 2\nevent: " + truncatedEvent + "\n\n"},
		{"", ""},
	}
	for _, c := range cases {
		for _, err := range []error{io.EOF, io.ErrUnexpectedEOF} {
			g := newFrameGuard(io.NopCloser(iotest.OneByteReader(io.MultiReader(strings.NewReader(c.in), iotest.ErrReader(err)))), 0)
			got, gotErr := io.ReadAll(g)
			if string(got) != c.want {
				t.Errorf("%q (%v): got %q want %q", c.in, err, got, c.want)
			}
			if err != io.EOF && !errors.Is(gotErr, err) {
				t.Errorf("%q: error %v, want %v", c.in, gotErr, err)
			}
		}
	}
	// Frames are handed out one at a time, whole, however they arrived.
	frames := []string{"event: a\ndata: 1\n\n", ": c\r\n\r\n", "data: " + strings.Repeat("x", 300<<10) + "\r\n\r\n", "data: 2\n\r\n", "data: 3\r\rdata: 4\n"}
	g := newFrameGuard(io.NopCloser(io.MultiReader(strings.NewReader(strings.Join(frames, "")), iotest.ErrReader(io.ErrUnexpectedEOF))), 0)
	buf := make([]byte, 1<<20)
	var got []string
	for {
		n, err := g.Read(buf)
		if n > 0 {
			got = append(got, string(buf[:n]))
		}
		if err != nil {
			break
		}
	}
	want := append(frames[:4:4], "data: 3\r\r", "data: 4\n", "event: "+truncatedEvent+"\n\n")
	if len(got) != len(want) {
		t.Fatalf("%d reads, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("read %d: %.40q, want %.40q", i, got[i], want[i])
		}
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestFrameGuardNoProgress: a body that keeps returning nothing is an error,
// not a spin.
func TestFrameGuardNoProgress(t *testing.T) {
	g := newFrameGuard(io.NopCloser(emptyReader{}), 0)
	if _, err := g.Read(make([]byte, 10)); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err %v", err)
	}
}
