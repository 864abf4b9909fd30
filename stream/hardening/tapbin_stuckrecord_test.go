package hardening_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"toolscope/model/modeltest"
)

// TestStdioTapExitsBesideAStuckRecording (issue 24 item 3, on the real
// binary): a stdio tap recording into a FIFO whose reader never reads exits
// within its bound once its child has exited, and says what it gave up;
// SIGTERM ends it at once.
func TestStdioTapExitsBesideAStuckRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := modeltest.Binary(t, "toolscope")
	for _, signal := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), "rec.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // opened, never read
		if err != nil {
			t.Fatal(err)
		}
		// The child says 4,000 notifications (about 600 KiB of recording,
		// ten times what the FIFO holds), then exits.
		script := `i=0; while [ $i -lt 4000 ]; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line '$i' of a server that talks a lot before it exits"}}'; i=$((i+1)); done`
		cmd := exec.Command(bin, "tap", "--record", fifo, "--", "/bin/sh", "-c", script)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		stdin, _ := cmd.StdinPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if signal {
			time.Sleep(time.Second) // the child has long exited; the recording is stuck
			cmd.Process.Signal(syscall.SIGTERM)
		}
		bound := 9 * time.Second // the child's output drained (2 s), the writer given up (2 s), slack for a loaded machine
		select {
		case <-done:
		case <-time.After(bound):
			cmd.Process.Kill()
			<-done
			t.Errorf("SIGTERM %v: the stdio tap was still running %v after it started (its child exits at once)", signal, bound)
		}
		took := time.Since(start)
		stdin.Close()
		reader.Close()
		t.Logf("SIGTERM %v: exited after %v; stderr:\n%s", signal, took, stderr.String())
		if !signal && !strings.Contains(stderr.String(), "given up") {
			t.Errorf("the tap did not say it gave the recording up:\n%s", stderr.String())
		}
	}
}
