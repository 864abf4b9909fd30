package hardening_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkTapMemory measures the real binary's resident size after a long
// run of small calls: `toolscope tap --output json` with default flags
// (10,000 finished calls kept), its lines to /dev/null, every call a
// platform-exact tools/call with a fresh token from 50 clients.
// TOOLSCOPE_BENCH_MEMORY_CALLS sets the calls (default 100,000). It
// reports the resident size once the calls are done and the process has
// been idle 2 s (rss-MiB), its peak (peak-rss-MiB), the calls, and the
// tap's CPU time (user+sys) per call over the whole run, the idle
// return of memory included (cpu-µs/call: GOGC=N in the environment shows
// what a tighter collector costs).
func BenchmarkTapMemory(b *testing.B) {
	calls := 100000
	if v := os.Getenv("TOOLSCOPE_BENCH_MEMORY_CALLS"); v != "" {
		var err error
		if calls, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	bin := toolscopeBinary(b)
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	const instanceID, secret = "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "bench-context-secret-0123456789abcdef"
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	cmd := exec.Command(bin, "tap", "--upstream", upstream.URL+"/mcp", "--listen", "127.0.0.1:0", "--output", "json", "--instance-id", instanceID)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_CONTEXT_SECRET="+secret)
	cmd.Stdout = devNull
	tp := startProc(b, "tap", cmd)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	mint := &callMinter{aud: instanceID, secret: []byte(secret), task: uuid.NewString()}
	b.ResetTimer()
	for range b.N {
		for done := 0; done < calls; {
			batch := mint.mintN(b, min(10000, calls-done), "get_order")
			n, _, err := concurrentSlice(client, tp.url, batch, 50, time.Hour)
			if err != nil {
				b.Fatalf("tap: %v\n%s", err, tp.stderr())
			}
			done += n
			tp.calls += n
		}
	}
	b.StopTimer()
	time.Sleep(2 * time.Second)
	rss, peak := procMemory(b, cmd.Process.Pid)
	cpu := procCPU(b, cmd.Process.Pid)
	tp.stop(b, true)
	b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(tp.calls), "calls")
	b.ReportMetric(float64(cpu.Microseconds())/float64(tp.calls), "cpu-µs/call")
}

// procMemory is a running process's resident size and its peak, from
// /proc (Linux).
func procMemory(b testing.TB, pid int) (rss, peak int64) {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	field := func(name string) int64 {
		_, rest, ok := bytes.Cut(status, []byte("\n"+name+":"))
		if !ok {
			b.Fatalf("no %s in /proc/%d/status", name, pid)
		}
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
		if err != nil {
			b.Fatalf("%s: %q", name, line)
		}
		return kb << 10
	}
	return field("VmRSS"), field("VmHWM")
}
