package hardening_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestTapStalledOutput (issue 23's stalled-output target, on the real
// binary): `tap --output json` into a pipe nobody reads answers 3,000 calls
// on 8 keep-alive connections and 12,000 calls on a connection each, every
// one within 2 s; its resident size stays under 256 MiB; and its output,
// once read, says how many lines were lost.
func TestTapStalledOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("15,000 calls through the real binary")
	}
	bin := buildBinary(t)
	up := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer up.Close()
	stdoutR, stdoutW, err := os.Pipe() // read only at the end: nobody reads it while the calls run
	if err != nil {
		t.Fatal(err)
	}
	defer stdoutR.Close()
	cmd := exec.Command(bin, "tap", "--upstream", up.URL, "--listen", "127.0.0.1:0", "--output", "json")
	cmd.Stdout = stdoutW
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdoutW.Close()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	tapURL, said := listeningURL(t, stderr)

	type phase struct {
		name      string
		calls     int
		conns     int
		keepAlive bool
	}
	for _, ph := range []phase{{"3000 calls on 8 keep-alive connections", 3000, 8, true}, {"12000 calls, a connection each", 12000, 32, false}} {
		slowest, failed := callsThrough(t, tapURL, ph.calls, ph.conns, ph.keepAlive)
		t.Logf("%s: slowest %v, %d failed", ph.name, slowest, failed)
		if failed > 0 || slowest > 2*time.Second {
			t.Errorf("%s: %d calls failed, the slowest took %v (want every call answered within 2 s)", ph.name, failed, slowest)
		}
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("peak resident size %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak resident size %d MiB, want under 256 MiB", peak>>20)
	}

	// Now read: the lines the pipe and the queue held, then what the tap
	// says of the rest, and its exit.
	var out bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&out, stdoutR); close(read) }()
	time.Sleep(500 * time.Millisecond) // the writer catches up
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("tap exited: %v\n%s", err, said())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the tap did not exit within 15 s of SIGINT\n%s", said())
	}
	<-read
	written, lost := countCallLines(t, out.Bytes())
	t.Logf("%d tool.call and tool.result lines written, %d lines said lost", written, lost)
	if lost == 0 {
		t.Errorf("no output_overflow line: a pipe nobody read lost nothing? (%d lines)", written)
	}
	if written+lost < 2*15000 || written+lost > 2*15000+100 {
		t.Errorf("%d call and result lines plus %d said lost, want the 30,000 events of 15,000 calls", written, lost)
	}
}

// listeningURL waits for the tap's "listening on URL" line; said returns
// the rest of its stderr.
func listeningURL(t *testing.T, stderr io.Reader) (string, func() string) {
	t.Helper()
	var mu sync.Mutex
	var rest strings.Builder
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
				found <- u
				continue
			}
			mu.Lock()
			rest.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	said := func() string { mu.Lock(); defer mu.Unlock(); return rest.String() }
	select {
	case u := <-found:
		return u, said
	case <-time.After(30 * time.Second):
		t.Fatalf("the tap did not start: %s", said())
	}
	return "", said
}

// callsThrough sends n plain tools/call requests from conns clients at once
// and returns the slowest answer and how many failed.
func callsThrough(t *testing.T, url string, n, conns int, keepAlive bool) (slowest time.Duration, failed int) {
	tr := &http.Transport{DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-%d"}}}`, i, i)
				start := time.Now()
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				slowest = max(slowest, took)
				if err != nil || resp.StatusCode != http.StatusOK {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return slowest, failed
}

// peakRSS is the process's peak resident size (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// countCallLines counts the tool.call and tool.result lines and adds up the
// lines the output_overflow warnings say were lost.
func countCallLines(t *testing.T, out []byte) (written, lost int) {
	for _, l := range bytes.Split(out, []byte("\n")) {
		switch {
		case bytes.Contains(l, []byte(`"kind":"tool.call"`)), bytes.Contains(l, []byte(`"kind":"tool.result"`)):
			written++
		case bytes.Contains(l, []byte(`"code":"output_overflow"`)):
			m := regexp.MustCompile(`(\d+) lines lost`).FindSubmatch(l)
			if m == nil {
				t.Fatalf("an output_overflow line without a count: %s", l)
			}
			n, _ := strconv.Atoi(string(m[1]))
			lost += n
		}
	}
	return written, lost
}

// TestStdioTapExitsBesideAStuckRecording (issue 24 item 3, on the real
// binary): a stdio tap recording into a FIFO whose reader never reads exits
// within its bound once its child has exited, and says what it gave up;
// SIGTERM ends it at once.
func TestStdioTapExitsBesideAStuckRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
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
