package hardening_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model/modeltest"
	"toolscope/output/recordfile"
)

// The processes BenchmarkTapOutOfProcess runs: the real toolscope binary's
// tap, and a bare httputil.ReverseProxy in a process of its own (this test
// binary run again), so that neither shares the load generator's heap and
// garbage collector and the two are compared alike.

// bareProxyEnv names the upstream a re-run of this binary proxies to.
const bareProxyEnv = "TOOLSCOPE_BENCH_BARE_UPSTREAM"

// bareFlushEnv sets the bare proxy's FlushInterval (default -1).
const bareFlushEnv = "TOOLSCOPE_BENCH_BARE_FLUSH"

// bareRecordEnv makes the bare proxy also record every call, raw, as one
// line in the file it names: the request's headers and body and the answer's
// bytes, quoted, no parsing. It is the least a recording proxy does; the
// ratio of bare to bare-with-recording is the floor for any tap that writes
// down every call on this machine (docs/performance.md).
const bareRecordEnv = "TOOLSCOPE_BENCH_BARE_RECORD"

// TestBareProxyProcess is the bare proxy's process; it does nothing unless
// BenchmarkTapOutOfProcess starts it (with bareProxyEnv set).
func TestBareProxyProcess(t *testing.T) {
	upstream := os.Getenv(bareProxyEnv)
	if upstream == "" {
		t.Skip("run by BenchmarkTapOutOfProcess only")
	}
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	// Configured as the tap's own proxy is (transport, buffer pool):
	// the difference measured is the tap's work, not a worse-tuned bare proxy.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression, tr.MaxIdleConns, tr.MaxIdleConnsPerHost = true, 512, 256
	// FlushInterval -1 is the baseline issue 12 names; the tap flushes a body
	// of known length less often (see stream/tap/proxy.go), and
	// bareFlushEnv=50ms measures a bare proxy tuned the same way.
	flush := time.Duration(-1)
	if v := os.Getenv(bareFlushEnv); v != "" {
		if flush, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport:     tr,
		FlushInterval: flush,
		BufferPool:    &bufferPool{},
	}
	// The body is read before it is forwarded, as the tap does: a proxy
	// that streams it breaks an SSE answer whose headers it flushes before
	// it has read the body's end (net/http: once the headers are flushed,
	// the request body may be unavailable), every stream under load here.
	rec := newRawRecorder(t, os.Getenv(bareRecordEnv))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if rec == nil {
			proxy.ServeHTTP(w, r)
			return
		}
		cw := &capturingWriter{ResponseWriter: w}
		proxy.ServeHTTP(cw, r)
		rec.record(r, body, cw.got)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "bare proxy: listening on http://%s\n", ln.Addr())
	go srv.Serve(ln)
	io.Copy(io.Discard, os.Stdin) // the benchmark closes stdin to stop it
	srv.Close()
	rec.close()
}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32*1024)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

// benchProc is a proxy process under measurement.
type benchProc struct {
	name  string
	mu    sync.Mutex
	tail  bytes.Buffer // its stderr but the listening line (the first 4 KB)
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
	calls int // calls sent through it
	// In a terminal (startTUIProc): the tmux socket and the tap's pid.
	tmux string
	pid  int
}

// startProc starts cmd and waits for its "listening on URL" line on stderr.
func startProc(b testing.TB, name string, cmd *exec.Cmd) *benchProc {
	b.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	p := &benchProc{name: name, cmd: cmd}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// A benchmark that fails half way must not leave its proxies running.
	b.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if _, u, ok := strings.Cut(line, "listening on "); ok {
				select {
				case found <- u:
				default:
				}
			} else {
				p.mu.Lock()
				if p.tail.Len() < 4096 {
					p.tail.WriteString(line + "\n")
				}
				p.mu.Unlock()
			}
		}
	}()
	select {
	case p.url = <-found:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		b.Fatalf("%s did not start: %s", name, p.stderr())
	}
	return p
}

// stderr is what the process said on stderr so far (but its listening line).
func (p *benchProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tail.String()
}

// stop ends the process as a user would (SIGINT for the tap, which then
// writes everything it holds; end of input for the bare proxy) and returns
// the CPU time it used in all.
func (p *benchProc) stop(b testing.TB, interrupt bool) time.Duration {
	b.Helper()
	if p.tmux != "" {
		return p.stopTUI(b)
	}
	if interrupt {
		p.cmd.Process.Signal(os.Interrupt)
	}
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b.Errorf("%s exited: %v", p.name, err)
		}
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
		b.Fatalf("%s did not exit within 30 s", p.name)
	}
	st := p.cmd.ProcessState
	return st.UserTime() + st.SystemTime()
}

// toolscopeBinary is TOOLSCOPE_BENCH_BIN when set (to measure another build,
// e.g. an earlier commit's, in the same session), else the binary built from
// this tree.
func toolscopeBinary(b testing.TB) string {
	b.Helper()
	if bin := os.Getenv("TOOLSCOPE_BENCH_BIN"); bin != "" {
		return bin
	}
	return modeltest.Binary(b, "toolscope")
}

// tapOutputCounts reads the tap's JSON lines: how many tool.call and
// tool.result lines, how many calls whose token verified, and the warning
// codes seen.
type tapOutputCounts struct {
	calls, results, valid int
	warnings              map[string]int
}

func countTapOutput(b *testing.B, path string) tapOutputCounts {
	b.Helper()
	c := tapOutputCounts{warnings: map[string]int{}}
	// A recording rotates at --record-max-size (100 MB by default, which a
	// run with its wire lines passes): its older parts first, then FILE.
	for _, part := range append(recordfile.Parts(path), path) {
		countTapLines(b, part, &c)
	}
	return c
}

// countTapLines adds one file's lines to c.
func countTapLines(b *testing.B, path string, c *tapOutputCounts) {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Kind    string `json:"kind"`
			Code    string `json:"code"`
			Context *struct {
				Verdict string `json:"verdict"`
			} `json:"context"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			b.Fatalf("tap output line is not JSON: %v: %.200s", err, sc.Text())
		}
		switch ev.Kind {
		case "tool.call":
			c.calls++
			if ev.Context != nil && ev.Context.Verdict == "valid" {
				c.valid++
			}
		case "tool.result":
			c.results++
		case "warning":
			c.warnings[ev.Code]++
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
}

// startTUIProc runs the tap's screen in a terminal, a tmux pane of 120x40
// on a tmux server of its own, with --record FILE (the lines the benchmark
// counts), and waits until it accepts connections. Without tmux the
// benchmark is skipped.
func startTUIProc(b *testing.B, bin, upstreamURL, instanceID, secret, record string) *benchProc {
	b.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is needed to run the screen in a terminal")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stderr := record + ".stderr"
	p := &benchProc{name: "tap", url: "http://" + addr, tmux: fmt.Sprintf("toolscope-bench-%d", os.Getpid())}
	// exec: the pane's process is the tap itself, whose CPU is measured.
	line := fmt.Sprintf("exec env TOOLSCOPE_CONTEXT_SECRET=%s %s tap --upstream %s --listen %s --instance-id %s --record %s 2>%s",
		shellQuote(secret), shellQuote(bin), shellQuote(upstreamURL), addr, instanceID, shellQuote(record), shellQuote(stderr))
	if out, err := exec.Command("tmux", "-L", p.tmux, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", line).CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v: %s", err, out)
	}
	b.Cleanup(func() { exec.Command("tmux", "-L", p.tmux, "kill-server").Run() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			msg, _ := os.ReadFile(stderr)
			b.Fatalf("the tap's screen did not start listening on %s: %s", addr, msg)
		}
	}
	out, err := exec.Command("tmux", "-L", p.tmux, "display-message", "-p", "-t", "bench", "#{pane_pid}").Output()
	if err == nil {
		p.pid, err = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	if err != nil {
		b.Fatalf("tmux pane pid: %v", err)
	}
	return p
}

// stopTUI quits the screen as a user does (q) once its CPU time is read,
// and waits for the process to end (its recording is then whole).
func (p *benchProc) stopTUI(b testing.TB) time.Duration {
	b.Helper()
	cpu := procCPU(b, p.pid)
	exec.Command("tmux", "-L", p.tmux, "send-keys", "-t", "bench", "q").Run()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.pid)); err != nil {
			return cpu
		}
		if time.Now().After(deadline) {
			b.Fatalf("the tap's screen did not quit within 30 s")
		}
	}
}

// cpu is the process's user and system time so far.
func (p *benchProc) cpu(b *testing.B) time.Duration {
	pid := p.pid
	if p.tmux == "" {
		pid = p.cmd.Process.Pid
	}
	return procCPU(b, pid)
}

// procCPU is a running process's user and system time from /proc (Linux;
// clock ticks of 10 ms, USER_HZ 100).
func procCPU(b testing.TB, pid int) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("CPU time of the tap: %v", err)
	}
	// The fields after the command name (in parentheses, may hold spaces):
	// state is the 3rd field, utime the 14th, stime the 15th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("CPU time of the tap: %q", stat)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
