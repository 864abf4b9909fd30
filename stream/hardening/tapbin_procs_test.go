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
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The processes BenchmarkTapOutOfProcess runs: the real toolscope binary's
// tap, and a bare httputil.ReverseProxy in a process of its own (this test
// binary run again), so that neither shares the load generator's heap and
// garbage collector and the two are compared alike.

// bareProxyEnv names the upstream a re-run of this binary proxies to.
const bareProxyEnv = "TOOLSCOPE_BENCH_BARE_UPSTREAM"

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
	// Configured as the tap's own proxy is (transport, flushing, buffer pool):
	// the difference measured is the tap's work, not a worse-tuned bare proxy.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression, tr.MaxIdleConns, tr.MaxIdleConnsPerHost = true, 512, 256
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport:     tr,
		FlushInterval: -1,
		BufferPool:    &bufferPool{},
	}
	// The body is read before it is forwarded, as the tap does: a proxy
	// that streams it breaks an SSE answer whose headers it flushes before
	// it has read the body's end (net/http: once the headers are flushed,
	// the request body may be unavailable), every stream under load here.
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "bare proxy: listening on http://%s\n", ln.Addr())
	go srv.Serve(ln)
	io.Copy(io.Discard, os.Stdin) // the benchmark closes stdin to stop it
	srv.Close()
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
}

// startProc starts cmd and waits for its "listening on URL" line on stderr.
func startProc(b *testing.B, name string, cmd *exec.Cmd) *benchProc {
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
func (p *benchProc) stop(b *testing.B, interrupt bool) time.Duration {
	b.Helper()
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
// this tree into dir.
func toolscopeBinary(b *testing.B, dir string) string {
	b.Helper()
	if bin := os.Getenv("TOOLSCOPE_BENCH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(dir, "toolscope")
	cmd := exec.Command("go", "build", "-o", bin, "toolscope")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
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
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	c := tapOutputCounts{warnings: map[string]int{}}
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
	return c
}
