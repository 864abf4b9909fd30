package cli

import (
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"toolscope/model/modeltest"
)

// stopGrace is the stdio tap's: how long a stopped child's group has
// before it is killed.
const stopGrace = 5 * time.Second

// startStubbornTap runs the real binary's stdio tap over
// stream/tap/testdata/stubborn.sh, a child that ignores SIGTERM and starts
// a grandchild that does too, and returns the tap and their two pids.
func startStubbornTap(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	toolscope, _ := stdioBins(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	cmd := exec.Command(toolscope, "tap", "--record", filepath.Join(dir, "s.jsonl"), "--",
		"/bin/sh", filepath.Join("..", "stream", "tap", "testdata", "stubborn.sh"), pidFile)
	stdin, err := cmd.StdinPipe() // held open: the client is still there
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := modeltest.ReadPIDs(t, pidFile, 10*time.Second)
	t.Cleanup(func() {
		for _, pid := range pids { // should the test fail, nothing is left behind
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if len(pids) != 2 {
		t.Fatalf("pids %v, want the child's and the grandchild's", pids)
	}
	modeltest.ProcessesRun(t, pids)
	return cmd, pids
}

// TestStdioTapKilledEndsItsChild: SIGKILL to toolscope (what an MCP host
// sends last) leaves no server behind: the child that ignores SIGTERM and
// its grandchild are gone within the grace.
func TestStdioTapKilledEndsItsChild(t *testing.T) {
	t.Parallel()
	cmd, pids := startStubbornTap(t)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	took := modeltest.WaitProcessesGone(t, pids, stopGrace+2*time.Second)
	t.Logf("child and grandchild gone %v after toolscope's SIGKILL", took)
}

// TestStdioTapTerminatedEndsItsChild: SIGTERM to toolscope goes to the
// child's group; what ignores it is killed after the grace, and toolscope
// exits as a shell reports the child's death (137).
func TestStdioTapTerminatedEndsItsChild(t *testing.T) {
	t.Parallel()
	cmd, pids := startStubbornTap(t)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(stopGrace + 5*time.Second):
		cmd.Process.Kill()
		t.Fatalf("toolscope did not exit within %v of SIGTERM", stopGrace+5*time.Second)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 137 {
		t.Errorf("toolscope exited %v after %v, want code 137 (the child's SIGKILL)", err, time.Since(start))
	}
	modeltest.WaitProcessesGone(t, pids, stopGrace+2*time.Second-time.Since(start))
	t.Logf("toolscope exited, child and grandchild gone, %v after SIGTERM", time.Since(start))
}
