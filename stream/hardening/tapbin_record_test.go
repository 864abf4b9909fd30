package hardening_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// rawRecorder is bareRecordEnv's recording: one line per call, written
// through a 64 KiB buffer, as the tap's JSON output is.
type rawRecorder struct {
	mu   sync.Mutex
	f    *os.File
	out  *bufio.Writer
	line []byte
}

func newRawRecorder(t *testing.T, path string) *rawRecorder {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	return &rawRecorder{f: f, out: bufio.NewWriterSize(f, 64<<10)}
}

// record writes the call as {"headers":"…","body":…,"answer":"…"}: the body
// is the client's JSON as it came, the rest quoted.
func (rr *rawRecorder) record(r *http.Request, body, answer []byte) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	b := append(rr.line[:0], `{"headers":"`...)
	for name, values := range r.Header {
		for _, v := range values {
			q := strconv.AppendQuote(nil, name+": "+v)
			b = append(b, q[1:len(q)-1]...)
			b = append(b, `\n`...)
		}
	}
	b = append(b, `","body":`...)
	b = append(b, body...)
	b = append(b, `,"answer":`...)
	b = strconv.AppendQuote(b, string(answer))
	b = append(b, "}\n"...)
	rr.line = b
	rr.out.Write(b)
}

func (rr *rawRecorder) close() {
	if rr == nil {
		return
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.out.Flush()
	rr.f.Close()
}

// capturingWriter keeps a copy of what the proxy writes to the client.
type capturingWriter struct {
	http.ResponseWriter
	got []byte
}

func (c *capturingWriter) Write(p []byte) (int, error) {
	c.got = append(c.got, p...)
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController (the proxy's flushes) reach the
// connection's writer.
func (c *capturingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// BenchmarkRecordingFloor measures what writing every call down costs on
// this machine, with no parsing at all: the bare proxy against itself with
// bareRecordEnv set, alternating, 50 clients, as BenchmarkTapOutOfProcess's
// throughput phase. Its rec/bare ratios bound what any recording tap can
// reach here (docs/performance.md). Run it with -benchtime 1x.
func BenchmarkRecordingFloor(b *testing.B) {
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	start := func(name, record string) *benchProc {
		cmd := exec.Command(self, "-test.run=^TestBareProxyProcess$")
		cmd.Env = append(os.Environ(), bareProxyEnv+"="+upstream.URL+"/mcp", bareRecordEnv+"="+record)
		return startProc(b, name, cmd)
	}
	rec := start("bare+record", filepath.Join(b.TempDir(), "calls.jsonl"))
	bare := start("bare", "")
	procs := []*benchProc{rec, bare}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	mint := &callMinter{aud: "floor", secret: []byte("bench-context-secret-0123456789abcdef"), task: uuid.NewString()}
	b.ResetTimer()
	var thru [2]float64
	for range b.N {
		t := benchThroughput(b, client, procs, mint, 50, 3*time.Second)
		thru[0] += t[0] / float64(b.N)
		thru[1] += t[1] / float64(b.N)
	}
	b.StopTimer()
	recCPU, bareCPU := rec.stop(b, false), bare.stop(b, false)
	b.ReportMetric(thru[0], "rec-req/s")
	b.ReportMetric(thru[1], "bare-req/s")
	b.ReportMetric(thru[0]/thru[1], "rec/bare-thru")
	b.ReportMetric((float64(recCPU)/float64(rec.calls))/(float64(bareCPU)/float64(bare.calls)), "rec/bare-cpu")
}
