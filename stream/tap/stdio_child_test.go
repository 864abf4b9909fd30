package tap

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"toolscope/model/modeltest"
)

// stubborn is testdata/stubborn.sh: a child that ignores SIGTERM and
// starts a grandchild that does too; it writes both pids to pidFile.
func stubborn(pidFile string) []string {
	return []string{"/bin/sh", filepath.Join("testdata", "stubborn.sh"), pidFile}
}

// TestStdioStopEndsTheChildsGroup: when ctx ends, a child that ignores
// SIGTERM, and the grandchild it started, are killed once the grace is
// over; RunStdio returns with the child's death by SIGKILL (137).
func TestStdioStopEndsTheChildsGroup(t *testing.T) {
	defer func(g time.Duration) { stopGrace = g }(stopGrace)
	stopGrace = time.Second
	pidFile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	r := startStdio(t, ctx, Config{}, stubborn(pidFile)...)
	go io.Copy(io.Discard, r.stdout)
	pids := modeltest.ReadPIDs(t, pidFile, 10*time.Second)
	if len(pids) != 2 {
		t.Fatalf("pids %v, want the child's and the grandchild's", pids)
	}
	cancel()
	time.Sleep(stopGrace / 2)
	modeltest.ProcessesRun(t, pids) // SIGTERM is ignored: the grace is theirs
	took := modeltest.WaitProcessesGone(t, pids, stopGrace+3*time.Second)
	t.Logf("gone %v after the stop's half grace", took)
	if code := r.wait(t); code != 137 {
		t.Errorf("exit code %d, want 137 (SIGKILL)", code)
	}
}

// TestStdioChildsGroupEndsWithTheChild: once the child exits, what is left
// of its group (a grandchild that ignores SIGTERM) is ended by the
// watchdog, while RunStdio returns at once.
func TestStdioChildsGroupEndsWithTheChild(t *testing.T) {
	defer func(g time.Duration) { stopGrace = g }(stopGrace)
	stopGrace = time.Second
	pidFile := filepath.Join(t.TempDir(), "pids")
	r := startStdio(t, context.Background(), Config{}, "/bin/sh", "-c",
		`trap '' TERM; sleep 600 & echo "$$ $!" > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 0.3`, pidFile)
	go io.Copy(io.Discard, r.stdout)
	pids := modeltest.ReadPIDs(t, pidFile, 10*time.Second)
	start := time.Now()
	r.wait(t)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("RunStdio returned %v after the child: it waited on the grandchild", d)
	}
	modeltest.WaitProcessesGone(t, pids[1:], stopGrace+3*time.Second)
}
