package hardening_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// The stalled-output target of issue 23, on the real binary: `tap --output
// json` with its stdout a pipe nobody reads (a paused pager) is sent 3,000
// calls on 8 keep-alive connections, then 12,000 calls on a connection each
// (50 at a time). The traffic must not wait on the stalled output: every
// call answered within 2 s, the resident size under 256 MiB, and once the
// pipe is read, every call shown or said lost (the output's overflow, or
// the exchanges the tap did not observe).

// stalledRun is what one run of the scenario measured.
type stalledRun struct {
	slowest            time.Duration
	rss, peak          int64
	calls, shown       int // calls sent; tool.call lines read
	notObserved        int // exchanges the tap said it forwarded but did not observe (parse_lagging)
	linesLost          int // lines the output said it lost (output_overflow)
	callAndResultLines int
}

// BenchmarkTapStalledOutput reports the scenario's figures. Run with
// -benchtime 1x.
func BenchmarkTapStalledOutput(b *testing.B) {
	var r stalledRun
	for range b.N {
		r = runStalledTap(b)
	}
	b.ReportMetric(float64(r.slowest)/float64(time.Millisecond), "slowest-ms")
	b.ReportMetric(float64(r.rss)/(1<<20), "stalled-rss-MiB")
	b.ReportMetric(float64(r.peak)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(r.shown), "calls-shown")
	b.ReportMetric(float64(r.notObserved), "said-not-observed")
	b.ReportMetric(float64(r.linesLost), "lines-said-lost")
	b.ReportMetric(float64(r.calls), "calls")
}

// TestTapStalledOutput holds the scenario to its targets in every test run.
func TestTapStalledOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("15,000 calls through the real binary")
	}
	r := runStalledTap(t)
	t.Logf("slowest call %v; peak RSS %d MiB; %d of %d calls shown, %d exchanges said not observed, %d lines said lost",
		r.slowest, r.peak>>20, r.shown, r.calls, r.notObserved, r.linesLost)
	if r.peak > 256<<20 {
		t.Errorf("peak resident size %d MiB, want under 256 MiB", r.peak>>20)
	}
	if r.linesLost+r.notObserved == 0 {
		t.Errorf("nothing said lost while stdout was not read (%d calls shown of %d)", r.shown, r.calls)
	}
	// Each call is a tool.call and a tool.result line: shown, or among the
	// lines said lost, or not observed at all.
	if got := r.callAndResultLines + r.linesLost + 2*r.notObserved; got < 2*r.calls {
		t.Errorf("%d call and result lines, %d said lost, %d exchanges not observed: %d of the %d events of %d calls accounted for",
			r.callAndResultLines, r.linesLost, r.notObserved, got, 2*r.calls, r.calls)
	}
}

func runStalledTap(tb testing.TB) stalledRun {
	bin := toolscopeBinary(tb)
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	const instanceID, secret = "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "bench-context-secret-0123456789abcdef"
	unread, stdout, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	defer unread.Close()
	cmd := exec.Command(bin, "tap", "--upstream", upstream.URL+"/mcp", "--listen", "127.0.0.1:0", "--output", "json", "--instance-id", instanceID)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_CONTEXT_SECRET="+secret)
	cmd.Stdout = stdout
	tp := startProc(tb, "tap", cmd)
	stdout.Close() // the tap holds it now
	mint := &callMinter{aud: instanceID, secret: []byte(secret), task: uuid.NewString()}
	keepAlive := mint.mintN(tb, 3000, "get_order")
	oneEach := mint.mintN(tb, 12000, "get_order")
	if b, ok := tb.(*testing.B); ok {
		b.ResetTimer()
	}

	var slowest atomic.Int64
	timed := func(client *http.Client, c benchCall) {
		start := time.Now()
		if err := sendAndRead(client, tp.url, c); err != nil {
			tb.Errorf("call: %v", err)
		}
		took := int64(time.Since(start))
		for {
			old := slowest.Load()
			if took <= old || slowest.CompareAndSwap(old, took) {
				break
			}
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		wg.Go(func() {
			for i := w; i < len(keepAlive); i += 8 {
				timed(client, keepAlive[i])
			}
		})
	}
	wg.Wait()
	fresh := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	next := atomic.Int64{}
	for range 50 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(oneEach)); i = next.Add(1) - 1 {
				timed(fresh, oneEach[i])
			}
		})
	}
	wg.Wait()
	if b, ok := tb.(*testing.B); ok {
		b.StopTimer()
	}
	r := stalledRun{calls: len(keepAlive) + len(oneEach)}
	r.rss, r.peak = procMemory(tb, cmd.Process.Pid)
	tp.calls = r.calls

	// Read the pipe now: the tap writes what it kept, then stops.
	notObserved := regexp.MustCompile(`(\d+) exchanges forwarded but not observed`)
	linesLost := regexp.MustCompile(`(\d+) lines lost`)
	count := func(re *regexp.Regexp, msg string) int {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(unread)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev struct{ Kind, Code, Message string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch {
			case ev.Kind == "tool.call":
				r.shown++
				r.callAndResultLines++
			case ev.Kind == "tool.result":
				r.callAndResultLines++
			case ev.Code == "parse_lagging":
				r.notObserved += count(notObserved, ev.Message)
			case ev.Code == "output_overflow":
				r.linesLost += count(linesLost, ev.Message)
			}
		}
	}()
	time.Sleep(2 * time.Second)
	tp.stop(tb, true)
	<-read
	r.slowest = time.Duration(slowest.Load())
	if r.slowest > 2*time.Second {
		tb.Errorf("with stdout stalled the slowest call took %v", r.slowest)
	}
	return r
}
