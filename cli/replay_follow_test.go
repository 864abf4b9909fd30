package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"toolscope/model/modeltest"
)

// recordingOf is a recording of n calls as a tap writes it: a status line
// stamped at start, then a tool.call and a tool.result a call.
func recordingOf(start time.Time, n int) []byte {
	b := fmt.Appendf(nil, `{"time":%q,"source":"tap","source_name":"srv","kind":"source.status","state":"connected","detail":"running srv"}`+"\n", start.UTC().Format(time.RFC3339Nano))
	for i := range n {
		ids := fmt.Sprintf(`"task_id":"task-1","tool_call_id":"call_%03d","tool":"read_sheet"`, i)
		b = fmt.Appendf(b, `{"time":"2026-07-29T10:00:00Z","source":"tap","source_name":"srv","kind":"tool.call",%s,"arguments":{"sheet":"orders"}}`+"\n", ids)
		b = fmt.Appendf(b, `{"time":"2026-07-29T10:00:01Z","source":"tap","source_name":"srv","kind":"tool.result",%s,"duration_ms":1000}`+"\n", ids)
	}
	return b
}

// TestReplayFollowReadsARestartedRecording: `replay --follow` of a
// recording that is cut and written again, larger, between two of its
// checks (a restarted `tap --record FILE`) shows every call of both runs
// and no malformed line.
func TestReplayFollowReadsARestartedRecording(t *testing.T) {
	toolscope, _ := stdioBins(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	start := time.Now()
	if err := os.WriteFile(path, recordingOf(start, 28), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(toolscope, "replay", "--follow", path, "--output", "json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var mu sync.Mutex
	kinds, codes := map[string]int{}, map[string]int{}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev struct{ Kind, Code, Detail string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			mu.Lock()
			kinds[ev.Kind]++
			codes[ev.Code]++
			mu.Unlock()
		}
	}()
	results := func() int { mu.Lock(); defer mu.Unlock(); return kinds["tool.result"] }
	modeltest.WaitFor(t, 10*time.Second, "the first run's 28 results", func() bool { return results() == 28 })
	time.Sleep(100 * time.Millisecond) // the follower waits at the end

	if err := os.WriteFile(path, recordingOf(start.Add(time.Minute), 31), 0o600); err != nil {
		t.Fatal(err)
	}
	modeltest.WaitFor(t, 10*time.Second, "the second run's 31 results", func() bool { return results() == 28+31 })
	time.Sleep(200 * time.Millisecond) // anything more would show now
	mu.Lock()
	defer mu.Unlock()
	if kinds["tool.call"] != 28+31 || kinds["warning"] != 0 {
		t.Fatalf("%d calls and %d warnings (%v), want 59 and none", kinds["tool.call"], kinds["warning"], codes)
	}
}
