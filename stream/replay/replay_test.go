package replay

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

type collect struct {
	mu  sync.Mutex
	evs []model.Event
}

func (c *collect) Emit(e model.Event) { c.mu.Lock(); c.evs = append(c.evs, e); c.mu.Unlock() }

func TestReplayAppliesEverythingAndWarnsOnBadLines(t *testing.T) {
	store := model.NewStore(model.Options{})
	var got collect
	hub := output.NewHub(store)
	sink := model.SinkFunc(func(e model.Event) { got.Emit(e); hub.Emit(e) })
	if err := Run(context.Background(), "testdata/sample.jsonl", Options{Speed: 0}, sink); err != nil {
		t.Fatal(err)
	}
	var warn *model.Event
	for i, e := range got.evs {
		if e.Kind == model.KindWarning && e.Code == "malformed_line" {
			warn = &got.evs[i]
		}
	}
	if warn == nil || !strings.Contains(warn.Message, "line 46") {
		t.Fatalf("no malformed_line warning naming line 46: %+v", warn)
	}
	snap := store.Snapshot()
	if len(snap.Calls) != 4 {
		t.Fatalf("%d calls, want 4", len(snap.Calls))
	}
	sheets := snap.FindCall("call_sheets")
	if sheets == nil || sheets.Status != model.StatusOK || sheets.SentCount() != 23 || sheets.RelayedCount() != 9 {
		t.Fatalf("sheets call: %+v", sheets)
	}
	last := got.evs[len(got.evs)-1]
	if last.Kind != model.KindSourceStatus || last.State != model.StateEnded || last.Source != model.SourceReplay {
		t.Errorf("last event %+v", last)
	}
}

func TestReplayMissingFile(t *testing.T) {
	err := Run(context.Background(), "testdata/nope.jsonl", Options{}, model.SinkFunc(func(model.Event) {}))
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Fatalf("err = %v", err)
	}
}

func TestReplayKeepsScaledTiming(t *testing.T) {
	lines := `{"time":"2026-07-29T10:00:00Z","source":"feed","source_name":"f","kind":"event","event_type":"a"}
{"time":"2026-07-29T10:00:00.400Z","source":"feed","source_name":"f","kind":"event","event_type":"b"}
`
	start := time.Now()
	if err := Play(context.Background(), strings.NewReader(lines), Options{Speed: 2, Name: "x"}, model.SinkFunc(func(model.Event) {})); err != nil {
		t.Fatal(err)
	}
	// 400 ms recorded at speed 2: at least 200 ms (timers never fire early).
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("replay took %v, want >= 200ms", d)
	}
}

func TestReplayStopsOnCancel(t *testing.T) {
	lines := `{"time":"2026-07-29T10:00:00Z","source":"feed","source_name":"f","kind":"event"}
{"time":"2026-07-29T10:00:04Z","source":"feed","source_name":"f","kind":"event"}
`
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := Play(ctx, strings.NewReader(lines), Options{Speed: 1}, model.SinkFunc(func(model.Event) {})); err == nil {
		t.Fatal("want the context's error")
	}
}

// repeatReader yields n copies of b, never holding more than b.
type repeatReader struct {
	b []byte
	n int
	i int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	c := copy(p, r.b[r.i:])
	r.i += c
	if r.i == len(r.b) {
		r.i, r.n = 0, r.n-1
	}
	return c, nil
}

// TestReplaySkipsOverlongLine: a line over MaxLineBytes is skipped with a
// warning naming it, and the rest plays (it stopped the replay before).
func TestReplaySkipsOverlongLine(t *testing.T) {
	first := `{"time":"2026-07-29T10:00:00Z","source":"feed","source_name":"f","kind":"event","event_type":"a"}` + "\n"
	last := "\n" + `{"time":"2026-07-29T10:00:01Z","source":"feed","source_name":"f","kind":"event","event_type":"b"}` + "\n"
	chunk := []byte(strings.Repeat("x", 64<<10))
	long := &repeatReader{b: chunk, n: MaxLineBytes/len(chunk) + 2}
	in := io.MultiReader(strings.NewReader(first), long, strings.NewReader(last))
	var got collect
	if err := Play(context.Background(), in, Options{Speed: 0, Name: "x"}, &got); err != nil {
		t.Fatal(err)
	}
	var types, warnings []string
	for _, e := range got.evs {
		switch e.Kind {
		case model.KindWarning:
			warnings = append(warnings, e.Code+": "+e.Message)
		case model.KindSourceStatus:
		default:
			types = append(types, e.EventType)
		}
	}
	if strings.Join(types, ",") != "a,b" {
		t.Fatalf("played %v", types)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "line_too_long: line 2: ") {
		t.Fatalf("warnings %v", warnings)
	}
}

// TestReplayOfOpenCallsBounded: a recording of calls that never finish
// (the issue: 10^6 tool.call lines took 8.3 GiB) keeps no more calls than
// the store's limits, running ones included. Scaled: 30,000 lines, limits
// of 500.
func TestReplayOfOpenCallsBounded(t *testing.T) {
	const lines = 30000
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, `{"time":"2026-07-29T10:00:%02d.%03dZ","source":"feed","source_name":"f","kind":"tool.call","task_id":"T","tool_call_id":"c%d","tool":"work"}`+"\n", i/1000%60, i%1000, i)
	}
	store := model.NewStore(model.Options{MaxRunningCalls: 500, MaxFinishedCalls: 500})
	if err := Play(context.Background(), strings.NewReader(b.String()), Options{Speed: 0, Name: "x"}, output.NewHub(store)); err != nil {
		t.Fatal(err)
	}
	snap := store.Snapshot()
	if len(snap.Calls) != 1000 || snap.Evicted != lines-1000 || snap.Calls[len(snap.Calls)-1].ToolCallID != fmt.Sprintf("c%d", lines-1) {
		t.Fatalf("%d calls kept, %d evicted", len(snap.Calls), snap.Evicted)
	}
}
