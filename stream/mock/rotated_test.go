package mock

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"toolscope/output"
	"toolscope/output/recordfile"
)

// TestLoadsARotatedRecordingInOrder: a recording rotated by --record's
// writer (here a part for every exchange) is learned whole, oldest part
// first: repeated calls get their answers in the order recorded.
func TestLoadsARotatedRecordingInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := recordfile.Create(path, 600, 10)
	if err != nil {
		t.Fatal(err)
	}
	w := output.NewWriter(f, output.WriterConfig{Name: "--record", Wire: true, Closer: f})
	const calls = 6
	for i := range calls {
		w.Emit(httpWire(time.Duration(i)*time.Second, call(i+1, "echo", `{"a":1}`, ""), map[float64]string{5: result(i+1, fmt.Sprintf("answer %d", i+1))}))
		w.Flush() // a write each: a line a part
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if parts := recordfile.Parts(path); len(parts) != calls-1 {
		t.Fatalf("%d older parts, want one an exchange", len(parts))
	}
	script, err := LoadRecording(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var requests []string
	for i := range calls {
		requests = append(requests, call(100+i, "echo", `{"a":1}`, ""))
	}
	got, _ := session(t, NewServer(script, 0), requests...)
	answers := map[string]string{}
	for _, line := range got {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && len(m.Result.Content) == 1 {
			answers[string(m.ID)] = m.Result.Content[0].Text
		}
	}
	for i := range calls {
		if got, want := answers[fmt.Sprint(100+i)], fmt.Sprintf("answer %d", i+1); got != want {
			t.Errorf("call %d answered %q, want %q", 100+i, got, want)
		}
	}
}
