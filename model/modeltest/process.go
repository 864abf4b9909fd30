package modeltest

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ProcessGone says whether no process pid runs: there is none, or it has
// exited and waits only to be reaped (a zombie). It asks ps(1), which every
// unix has.
func ProcessGone(t testing.TB, pid int) bool {
	t.Helper()
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	state := strings.TrimSpace(string(out))
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("ps: %v", err)
	}
	if err != nil && state == "" {
		return true // ps exits 1 when no such process
	}
	return strings.HasPrefix(state, "Z")
}

// ReadPIDs waits up to timeout for path to hold a line of process ids (a
// test program writes its own and its children's) and returns them.
func ReadPIDs(t testing.TB, path string, timeout time.Duration) []int {
	t.Helper()
	var pids []int
	WaitFor(t, timeout, "the process ids in "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: %q is not a process id", path, f)
			}
			pids = append(pids, n)
		}
		return len(pids) > 0
	})
	return pids
}

// WaitProcessesGone fails the test unless every process of pids is gone
// within timeout, and returns how long that took.
func WaitProcessesGone(t testing.TB, pids []int, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		var running []string
		for _, pid := range pids {
			if !ProcessGone(t, pid) {
				running = append(running, strconv.Itoa(pid))
			}
		}
		if len(running) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("processes %s still run %v later", strings.Join(running, ", "), timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ProcessesRun fails the test unless every process of pids runs.
func ProcessesRun(t testing.TB, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if ProcessGone(t, pid) {
			t.Fatalf("process %d is not running", pid)
		}
	}
}
