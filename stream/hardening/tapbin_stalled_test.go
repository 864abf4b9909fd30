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

	"toolscope/decoder"
)

// BenchmarkTapStalledOutput runs the real binary's `tap --output json` with
// its stdout a pipe nobody reads (a paused pager) and sends 3,000 calls on 8
// keep-alive connections, then 12,000 calls on a connection each (50 at a
// time). The traffic must not wait on the stalled output: it fails when a
// call takes over 2 s. It reports the slowest call, the resident size while
// stalled (peak too) and, once the pipe is read, the calls shown and the
// exchanges the tap said it did not observe. Run with -benchtime 1x.
func BenchmarkTapStalledOutput(b *testing.B) {
	dir := b.TempDir()
	bin := toolscopeBinary(b, dir)
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	const instanceID, secret = "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "bench-context-secret-0123456789abcdef"
	unread, stdout, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer unread.Close()
	cmd := exec.Command(bin, "tap", "--upstream", upstream.URL+"/mcp", "--listen", "127.0.0.1:0", "--output", "json", "--instance-id", instanceID)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_CONTEXT_SECRET="+secret)
	cmd.Stdout = stdout
	tp := startProc(b, "tap", cmd)
	stdout.Close() // the tap holds it now
	mint := &callMinter{aud: instanceID, secret: []byte(secret), task: decoder.NewUUID()}
	keepAlive := mint.mintN(b, 3000, "get_order")
	oneEach := mint.mintN(b, 12000, "get_order")
	b.ResetTimer()

	var slowest atomic.Int64
	timed := func(client *http.Client, c benchCall) {
		start := time.Now()
		if err := sendAndRead(client, tp.url, c); err != nil {
			b.Errorf("call: %v", err)
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
	b.StopTimer()
	rss, peak := procMemory(b, cmd.Process.Pid)
	tp.calls = len(keepAlive) + len(oneEach)

	// Read the pipe now: the tap writes what it kept, then stops.
	shown, lost := 0, 0
	said := regexp.MustCompile(`(\d+) exchanges forwarded but not observed`)
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
				shown++
			case ev.Code == "parse_lagging":
				if m := said.FindStringSubmatch(ev.Message); m != nil {
					n, _ := strconv.Atoi(m[1])
					lost += n
				}
			}
		}
	}()
	time.Sleep(2 * time.Second)
	tp.stop(b, true)
	<-read
	if time.Duration(slowest.Load()) > 2*time.Second {
		b.Errorf("with stdout stalled the slowest call took %v", time.Duration(slowest.Load()))
	}
	b.ReportMetric(float64(slowest.Load())/float64(time.Millisecond), "slowest-ms")
	b.ReportMetric(float64(rss)/(1<<20), "stalled-rss-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(shown), "calls-shown")
	b.ReportMetric(float64(lost), "said-not-observed")
	b.ReportMetric(float64(tp.calls), "calls")
}
