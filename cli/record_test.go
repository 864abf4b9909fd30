package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// TestRecordingWrittenWhileRunning: --record reaches the file while the
// command still runs, within a fraction of a second of the events, not only
// at exit (issue 14: with the TUI a crash lost the whole recording).
func TestRecordingWrittenWhileRunning(t *testing.T) {
	dir := t.TempDir()
	in, rec := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "rec.jsonl")
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	for i, id := range []string{"call_first", "call_second"} {
		b.Write(output.EncodeLine(&model.Event{Time: at.Add(time.Duration(i) * 1500 * time.Millisecond), Source: model.SourceTap,
			SourceName: "tap", Kind: model.KindToolCall, TaskID: "T1", ToolCallID: id, Tool: "work"}))
	}
	if err := os.WriteFile(in, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	defer func(out *os.File) { os.Stdout = out }(os.Stdout)
	os.Stdout = devNull

	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- run([]string{"replay", in, "--speed", "1", "--output", "text", "--record", rec}) }()
	for {
		got, _ := os.ReadFile(rec)
		if bytes.Contains(got, []byte("call_first")) {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("the replay ended (exit %d) before its first event reached the recording", code)
		default:
		}
		if time.Since(start) > time.Second {
			t.Fatalf("the first event is not in the recording %v after the replay started", time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("first event recorded after %v, the replay still running", time.Since(start))
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got, _ := os.ReadFile(rec); !bytes.Contains(got, []byte("call_second")) {
		t.Fatalf("the recording lacks the second event:\n%s", got)
	}
}
