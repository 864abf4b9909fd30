package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
	"toolscope/output/recordfile"
)

// bigRecording writes n tool.call events of about 10 KB each.
func bigRecording(t *testing.T, path string, n int) {
	t.Helper()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	args, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 10<<10)})
	for i := range n {
		b.Write(output.EncodeLine(&model.Event{Time: at.Add(time.Duration(i) * time.Millisecond), Source: model.SourceTap,
			SourceName: "tap", Kind: model.KindToolCall, TaskID: "T", ToolCallID: fmt.Sprintf("call_%04d", i), Tool: "work", Arguments: args}))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// callIDs are the tool_call_ids of the tool.call lines of JSON lines out.
func callIDs(t *testing.T, out string) []string {
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e model.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if e.Kind == model.KindToolCall {
			ids = append(ids, e.ToolCallID)
		}
	}
	return ids
}

// TestRecordRotatesAndReplaysInOrder: --record-max-size rotates the
// recording into parts of at most that size, keeps --record-keep older
// ones, and replay reads the set back in the order it was written.
func TestRecordRotatesAndReplaysInOrder(t *testing.T) {
	dir := t.TempDir()
	in, rec := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "rec.jsonl")
	bigRecording(t, in, 300) // ~3 MB
	// A stale part of an earlier recording to the same file is replaced.
	stale := filepath.Join(dir, "rec-2020-01-01T00-00-00.000.jsonl")
	os.WriteFile(stale, []byte(`{"time":"2020-01-01T00:00:00Z","source":"tap","source_name":"old","kind":"tool.call","tool_call_id":"stale"}`+"\n"), 0o600)
	captureStdout(t, func() {
		if code := run([]string{"replay", in, "--speed", "0", "--output", "json", "--record", rec, "--record-max-size", "1", "--record-keep", "5"}); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
	parts := recordfile.Parts(rec)
	if len(parts) < 2 {
		t.Fatalf("%d older parts, want the 3 MB recording rotated at 1 MB", len(parts))
	}
	for _, p := range append(parts, rec) {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > 1<<20 {
			t.Errorf("%s: %v bytes, over 1 MiB (%v)", p, fi.Size(), err)
		}
		if p == stale {
			t.Error("the stale part of an earlier recording is still in the set")
		}
	}
	out := captureStdout(t, func() {
		if code := run([]string{"replay", rec, "--speed", "0", "--output", "json"}); code != 0 {
			t.Fatalf("replay of the set: exit %d", code)
		}
	})
	ids := callIDs(t, out)
	if len(ids) != 300 {
		t.Fatalf("replay of the set: %d calls, want 300", len(ids))
	}
	for i, id := range ids {
		if id != fmt.Sprintf("call_%04d", i) {
			t.Fatalf("call %d is %s: the parts are out of order", i, id)
		}
	}

	// --record-keep 1: only the newest older part stays.
	captureStdout(t, func() {
		run([]string{"replay", in, "--speed", "0", "--output", "json", "--record", rec, "--record-max-size", "1", "--record-keep", "1"})
	})
	if parts := recordfile.Parts(rec); len(parts) != 1 {
		t.Errorf("--record-keep 1 left %d older parts", len(parts))
	}
}

func TestRecordFlagsChecked(t *testing.T) {
	for _, args := range [][]string{
		{"--record-body-limit", "lots"},
		{"--record-max-size", "-1"},
		{"--record-keep", "0"},
	} {
		code := run(append([]string{"replay", modeltest.SessionFile(), "--speed", "0", "--output", "json", "--record", filepath.Join(t.TempDir(), "r.jsonl")}, args...))
		if code == 0 {
			t.Errorf("%v accepted", args)
		}
	}
	for in, want := range map[string]int64{"262144": 262144, "256KiB": 256 << 10, "1MiB": 1 << 20, "64k": 64 << 10, "0": 0} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v", in, got, err)
		}
	}
}

// TestPruneDefaultRecordings: the stdio tap's default location keeps the
// newest recordings (and any written lately), not every run's.
func TestPruneDefaultRecordings(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var paths []string
	for i := range keepDefaultRecordings + 5 {
		p := filepath.Join(dir, fmt.Sprintf("stdio-srv-2026%04d-%d.jsonl", i, i))
		os.WriteFile(p, []byte("{}\n"), 0o600)
		os.Chtimes(p, old, old.Add(time.Duration(i)*time.Second))
		paths = append(paths, p)
	}
	part := strings.TrimSuffix(paths[0], ".jsonl") + "-2026-01-01T00-00-00.000.jsonl"
	os.WriteFile(part, []byte("{}\n"), 0o600)
	recent := filepath.Join(dir, "stdio-busy-1.jsonl") // another run's, still written
	os.WriteFile(recent, []byte("{}\n"), 0o600)
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("mine"), 0o600)
	pruneDefaultRecordings(dir)
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i < 6) { // 26 recordings, the busy one among the 20 newest kept
			t.Errorf("%s: gone %v", filepath.Base(p), gone)
		}
	}
	if _, err := os.Stat(part); err == nil {
		t.Error("a pruned recording's older part stayed")
	}
	for _, p := range []string{recent, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}
