//go:build unix

package cli

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"toolscope/output/recordfile"
)

// TestRecordToFIFONotRotated: a recording to what is not a regular file
// (a FIFO a reader drains) is written as it is, whole: a rotation would
// rename it from under its reader.
func TestRecordToFIFONotRotated(t *testing.T) {
	dir := t.TempDir()
	in, fifo := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "live.jsonl")
	bigRecording(t, in, 150) // 1.5 MB, over one part of 1 MB
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	read := make(chan int64, 1)
	ready := make(chan struct{})
	go func() {
		// A reader before the writer opens (the recording refuses a FIFO
		// nobody reads): held without waiting, then a blocking open that
		// returns once the writer has opened, read to its end.
		hold, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		close(ready)
		if err != nil {
			read <- -1
			return
		}
		defer hold.Close()
		f, err := os.Open(fifo)
		if err != nil {
			read <- -1
			return
		}
		n, _ := io.Copy(io.Discard, f)
		f.Close()
		read <- n
	}()
	<-ready
	captureStdout(t, func() {
		if code := run([]string{"replay", in, "--speed", "0", "--output", "json", "--record", fifo, "--record-max-size", "1"}); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
	if n := <-read; n < 1500000 {
		t.Errorf("the FIFO's reader got %d bytes, want the whole recording", n)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v (%v)", fifo, fi.Mode(), err)
	}
	if parts := recordfile.Parts(fifo); len(parts) != 0 {
		t.Errorf("parts beside the FIFO: %v", parts)
	}
}
