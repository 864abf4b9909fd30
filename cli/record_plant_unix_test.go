//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
	"toolscope/output/recordfile"
)

// bigCall is a tool.call event of about 10 KB.
func bigCall(i int) model.Event {
	args, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 10<<10)})
	return model.Event{Time: time.Now().UTC(), Source: model.SourceTap, SourceName: "tap", Kind: model.KindToolCall,
		TaskID: "T", ToolCallID: fmt.Sprintf("call_%04d", i), Tool: "work", Arguments: args}
}

// recordingGoroutines are the stacks of goroutines of the recording's
// writer or file.
func recordingGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "toolscope/output.(*Writer)") || strings.Contains(g, "recordfile") || strings.Contains(g, "lumberjack") {
			found = append(found, g)
		}
	}
	return found
}

// TestRecordLinkPlantedBetweenRotationsNotFollowed: --record rotating in a
// shared directory, where someone removes the file and plants a link to
// another of the user's files before the next rotation: the target is
// untouched, the link left alone, and the recording says what it did (a
// write_failed warning and stderr: it stops, its parts kept), and no
// goroutine of the recording outlives its Close.
func TestRecordLinkPlantedBetweenRotationsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	rec, target := filepath.Join(dir, "rec.jsonl"), filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()
	o := outputFlags{record: rec, recordMaxSizeMB: 1, recordKeep: 5, recordBodyLimit: defaultRecordBodyLimit}
	w, err := o.recordingWriter()
	if err != nil {
		t.Fatal(err)
	}
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store, w)
	var said []string
	var mu sync.Mutex
	hub.OnWriteError = func(err error) { mu.Lock(); said = append(said, err.Error()); mu.Unlock() }
	for i := range 150 { // 1.5 MB: one rotation
		hub.Emit(bigCall(i))
	}
	hub.Flush()
	if parts := recordfile.Parts(rec); len(parts) != 1 {
		t.Fatalf("parts before the plant: %v", parts)
	}
	os.Remove(rec)
	if err := os.Symlink(target, rec); err != nil {
		t.Fatal(err)
	}
	for i := 150; i < 300; i++ {
		hub.Emit(bigCall(i))
	}
	err = hub.Close()

	const want = "is no longer the file this recording was writing"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Close: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Errorf("the link's target now holds %d bytes", len(b))
	}
	if got, err := os.Readlink(rec); err != nil || got != target {
		t.Errorf("the planted link: %q, %v", got, err)
	}
	mu.Lock()
	if len(said) != 1 || !strings.Contains(said[0], "--record "+rec+": "+rec+" "+want) {
		t.Errorf("said on stderr: %q", said)
	}
	mu.Unlock()
	var warned bool
	for _, w := range store.Snapshot().Other {
		warned = warned || w.Code == string(model.WarnWriteFailed) && strings.Contains(w.Message, want)
	}
	if !warned {
		t.Error("no write_failed warning in the store")
	}

	deadline := time.Now().Add(2 * time.Second)
	for (runtime.NumGoroutine() > goroutines || len(recordingGoroutines()) > 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := recordingGoroutines(); len(left) > 0 || runtime.NumGoroutine() > goroutines {
		t.Errorf("%d goroutines after Close, %d before; the recording's:\n%s", runtime.NumGoroutine(), goroutines, strings.Join(left, "\n\n"))
	}
}

// TestRecordRefusesAnotherUsersLink: --record naming a link another user
// placed (in /tmp, say) is refused before anything runs; the user's own
// link (to /dev/null here) is written through, as it is. (A test can give
// a link to another user only as root.)
func TestRecordRefusesAnotherUsersLink(t *testing.T) {
	dir := t.TempDir()
	mine, theirs := filepath.Join(dir, "mine.jsonl"), filepath.Join(dir, "theirs.jsonl")
	for _, p := range []string{mine, theirs} {
		if err := os.Symlink(os.DevNull, p); err != nil {
			t.Fatal(err)
		}
	}
	args := func(rec string) []string {
		return []string{"replay", modeltest.SessionFile(), "--speed", "0", "--output", "json", "--record", rec}
	}
	captureStdout(t, func() {
		if code := run(args(mine)); code != 0 {
			t.Errorf("--record through the user's own link: exit %d", code)
		}
	})
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	if err := os.Lchown(theirs, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	var code int
	stderr := capture(t, &os.Stderr, func() {
		captureStdout(t, func() { code = run(args(theirs)) })
	})
	if code == 0 || !strings.Contains(stderr, "belongs to user 4242, not to you") {
		t.Errorf("--record through another user's link: exit %d, %q", code, stderr)
	}
}
