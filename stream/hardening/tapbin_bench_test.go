package hardening_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"toolscope/decoder"
	"toolscope/decoder/token"
	"toolscope/model"
	"toolscope/model/modeltest"
)

// BenchmarkTapOutOfProcess measures the tap as a user runs it: the real
// binary's tap against a bare httputil.ReverseProxy in its own process,
// alternating between the two in one run, every call a platform-exact
// tools/call with a fresh valid X-AgentArea-Context token
// (--instance-id and TOOLSCOPE_CONTEXT_SECRET set). Two ways to run the tap:
//   - json: `toolscope tap --upstream URL --output json`, its lines to a file;
//   - tui: the screen in a terminal (a tmux pane, 120x40; skipped without
//     tmux) with `--record FILE`.
//
// Four phases, each alternating between the two: sequential calls (p50,
// p99), 50 clients at saturation (throughput, CPU per call), SSE progress
// streams (forwarding delay), and an open loop at a fixed 2,000 calls/s
// (CPU per call at the same moderate load: each process's user+sys from
// /proc over its slices and one idle second after each, divided by its
// calls).
//
// It reports each path's figures and the tap/bare ratios, and fails when
// the tap's lines do not hold one tool.call and one tool.result per call
// made through it. Run it with -benchtime 1x: one iteration is the whole
// workload (about 40 s each).
func BenchmarkTapOutOfProcess(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchTapOutOfProcess(b, false) })
	b.Run("tui", func(b *testing.B) { benchTapOutOfProcess(b, true) })
}

func benchTapOutOfProcess(b *testing.B, tui bool) {
	dir := b.TempDir()
	bin := toolscopeBinary(b)
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	upstreamURL := upstream.URL + "/mcp"

	const instanceID, secret = "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "bench-context-secret-0123456789abcdef"
	outPath := filepath.Join(dir, "tap.jsonl")
	var tp *benchProc
	if tui {
		tp = startTUIProc(b, bin, upstreamURL, instanceID, secret, outPath)
	} else {
		out, err := os.Create(outPath)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		tapCmd := exec.Command(bin, "tap", "--upstream", upstreamURL, "--listen", "127.0.0.1:0", "--output", "json", "--instance-id", instanceID)
		tapCmd.Env = append(os.Environ(), "TOOLSCOPE_CONTEXT_SECRET="+secret)
		tapCmd.Stdout = out
		tp = startProc(b, "tap", tapCmd)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	bareCmd := exec.Command(self, "-test.run=^TestBareProxyProcess$")
	bareCmd.Env = append(os.Environ(), bareProxyEnv+"="+upstreamURL)
	bare := startProc(b, "bare", bareCmd)
	procs := []*benchProc{tp, bare}

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	mint := &callMinter{aud: instanceID, secret: []byte(secret), task: uuid.NewString()}
	b.ResetTimer()
	var lat, delay, olLat [2][]time.Duration
	var thru [2]float64
	var olCPU [2]time.Duration
	var olCalls [2]int
	for range b.N {
		l := benchSequential(b, client, procs, mint, 2000)
		t := benchThroughput(b, client, procs, mint, 50, 3*time.Second)
		d := benchSSEDelay(b, client, procs, mint, 40)
		ol := benchOpenLoop(b, client, procs, mint, openLoopRate, 3, 3*time.Second)
		for j := range procs {
			olCPU[j] += ol.cpu[j]
			olCalls[j] += ol.calls[j]
			olLat[j] = append(olLat[j], ol.lat[j]...)
			lat[j] = append(lat[j], l[j]...)
			delay[j] = append(delay[j], d[j]...)
			thru[j] += t[j] / float64(b.N)
		}
	}
	b.StopTimer()
	tapCPU, bareCPU := tp.stop(b, true), bare.stop(b, false)

	for j, p := range procs {
		b.ReportMetric(us(pct(lat[j], 50)), p.name+"-p50-µs")
		b.ReportMetric(us(pct(lat[j], 99)), p.name+"-p99-µs")
		b.ReportMetric(thru[j], p.name+"-req/s")
		b.ReportMetric(us(pct(delay[j], 50)), p.name+"-sse-p50-µs")
		b.ReportMetric(us(slices.Max(delay[j])), p.name+"-sse-max-µs")
	}
	b.ReportMetric(float64(pct(lat[0], 50))/float64(pct(lat[1], 50)), "tap/bare-p50")
	b.ReportMetric(float64(pct(lat[0], 99))/float64(pct(lat[1], 99)), "tap/bare-p99")
	b.ReportMetric(thru[0]/thru[1], "tap/bare-thru")
	b.ReportMetric(float64(pct(delay[0], 50))/float64(pct(delay[1], 50)), "tap/bare-sse-p50")
	b.ReportMetric(float64(slices.Max(delay[0]))/float64(time.Millisecond), "tap-sse-max-ms")
	// CPU per call at a fixed rate (open loop), the same load for both.
	for j, p := range procs {
		b.ReportMetric(float64(olCPU[j].Microseconds())/float64(olCalls[j]), p.name+"-ol-cpu-µs/call")
		b.ReportMetric(us(pct(olLat[j], 50)), p.name+"-ol-p50-µs")
	}
	b.ReportMetric((float64(olCPU[0])/float64(olCalls[0]))/(float64(olCPU[1])/float64(olCalls[1])), "tap/bare-ol-cpu")
	b.ReportMetric(float64(pct(olLat[0], 50))/float64(pct(olLat[1], 50)), "tap/bare-ol-p50")
	// CPU per call over the whole run, each process's own (from its rusage).
	b.ReportMetric(float64(tapCPU.Microseconds())/float64(tp.calls), "tap-cpu-µs/call")
	b.ReportMetric((float64(tapCPU)/float64(tp.calls))/(float64(bareCPU)/float64(bare.calls)), "tap/bare-cpu")

	got := countTapOutput(b, outPath)
	b.ReportMetric(float64(tp.calls), "tap-calls")
	if got.calls != tp.calls || got.results != tp.calls {
		b.Errorf("events dropped: %d calls through the tap, its output has %d tool.call and %d tool.result lines", tp.calls, got.calls, got.results)
	}
	if got.valid != tp.calls || len(got.warnings) > 0 {
		b.Errorf("%d of %d calls verified valid; warnings %v", got.valid, tp.calls, got.warnings)
	}
}

// benchCall is one minted tools/call: body and headers as the platform sends.
type benchCall struct {
	body   []byte
	header http.Header
}

// callMinter mints calls as AgentArea does: one task, a fresh tool call id
// and request id per call, _meta from PlatformMeta, and a token whose claims
// equal it (fresh jti). Minting happens before a phase's clock starts.
type callMinter struct {
	aud    string
	secret []byte
	task   string
	id     atomic.Int64
}

func (m *callMinter) mint(b testing.TB, tool string) benchCall {
	id := m.id.Add(1)
	meta := decoder.PlatformMeta(decoder.CallContext{TaskID: m.task, ToolCallID: uuid.NewString(), WorkspaceID: "ws-bench"}, id)
	token, err := token.Sign(token.Claims(m.aud, tool, meta, time.Now()), m.secret)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": map[string]any{"orderId": "A-17"}, "_meta": meta}})
	if err != nil {
		b.Fatal(err)
	}
	h := decoder.PlatformHeaders("tools/call", tool)
	h.Set(model.ContextHeader, token)
	return benchCall{body: body, header: h}
}

// mintN mints n calls on every core (still before the clock starts).
func (m *callMinter) mintN(b testing.TB, n int, tool string) []benchCall {
	calls := make([]benchCall, n)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := w; i < n; i += 2 {
				calls[i] = m.mint(b, tool)
			}
		})
	}
	wg.Wait()
	return calls
}

// benchMCPUpstream answers a tools/call with a small JSON result carrying
// its id, or, for the tool "progress", with an SSE stream of 20 progress
// notifications 1 ms apart (each stamped with when it was written) and then
// the result.
func benchMCPUpstream(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || req.ID == nil {
		http.Error(w, "not a request", http.StatusBadRequest)
		return
	}
	result := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`, req.ID)
	if req.Params.Name != "progress" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(result)))
		w.Write(result)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	for i := 1; i <= 20; i++ {
		time.Sleep(time.Millisecond)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":%d,\"total\":20,\"message\":\"t=%d\"}}\n\n", req.ID, i, time.Now().UnixNano())
		rc.Flush()
	}
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", result)
	rc.Flush()
}

// send makes one call and reads the whole answer; the caller counts it.
func send(client *http.Client, url string, c benchCall) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(c.body))
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("%s: HTTP %d", url, res.StatusCode)
	}
	return res, nil
}

func sendAndRead(client *http.Client, url string, c benchCall) error {
	res, err := send(client, url, c)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return err
}

// benchSequential makes n calls on each process one at a time, alternating
// (which goes first swaps every call), and returns each call's latency.
func benchSequential(b *testing.B, client *http.Client, procs []*benchProc, m *callMinter, n int) [2][]time.Duration {
	calls := m.mintN(b, 2*n, "get_order")
	var lat [2][]time.Duration
	for i := range n {
		for k := range 2 {
			j := (i + k) % 2
			start := time.Now()
			if err := sendAndRead(client, procs[j].url, calls[2*i+k]); err != nil {
				b.Fatalf("%s: %v\n%s stderr:\n%s", procs[j].name, err, procs[j].name, procs[j].stderr())
			}
			lat[j] = append(lat[j], time.Since(start))
			procs[j].calls++
		}
	}
	return lat
}

// benchThroughput runs clients concurrent clients against each process for
// d in all, in alternating slices, and returns each one's calls per second.
func benchThroughput(b *testing.B, client *http.Client, procs []*benchProc, m *callMinter, clients int, d time.Duration) [2]float64 {
	const slices = 6
	slice := d / slices
	var done [2]int
	var elapsed [2]time.Duration
	// Unused calls carry over; the pool is topped up between slices to twice
	// the most a slice has used, so a slice never runs short (it fails if one does).
	var pool []benchCall
	want, most := 10000, 0 // 10000: more than a first slice uses at 14 k/s
	for s := range slices {
		for k := range 2 {
			j := (s + k) % 2
			if len(pool) < want {
				pool = append(pool, m.mintN(b, want-len(pool), "get_order")...)
			}
			n, took, err := concurrentSlice(client, procs[j].url, pool, clients, slice)
			if err != nil {
				b.Fatalf("%s: %v\n%s stderr:\n%s", procs[j].name, err, procs[j].name, procs[j].stderr())
			}
			// What a process still does for its slice's calls (the tap's
			// observation, off the proxy path) must not run in the other's.
			time.Sleep(time.Second)
			if n == len(pool) {
				b.Fatalf("%s: slice ran out of calls (%d)", procs[j].name, n)
			}
			pool = pool[n:]
			most = max(most, n)
			want = max(want, 2*most) // never less: the other process may be the faster one
			done[j] += n
			elapsed[j] += took
			procs[j].calls += n
		}
	}
	return [2]float64{float64(done[0]) / elapsed[0].Seconds(), float64(done[1]) / elapsed[1].Seconds()}
}

// concurrentSlice sends calls from n clients until d has passed or the calls
// run out, and returns how many were answered and how long they took.
func concurrentSlice(client *http.Client, url string, calls []benchCall, n int, d time.Duration) (int, time.Duration, error) {
	var next, answered atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range n {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				i := next.Add(1) - 1
				if i >= int64(len(calls)) {
					return
				}
				if err := sendAndRead(client, url, calls[i]); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				answered.Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, took, err
	}
	return int(answered.Load()), took, nil
}

// openLoopRate is the fixed load of the open-loop phase, in calls per
// second: a busy agent platform's, well under saturation.
const openLoopRate = 2000

// openLoop is what the open-loop phase measured of each process.
type openLoop struct {
	cpu   [2]time.Duration // user+sys over the slices and one idle second after each
	calls [2]int
	lat   [2][]time.Duration
}

// benchOpenLoop sends calls at a fixed rate (open loop: a call is sent when
// it is due, whether or not earlier ones were answered), in alternating
// slices of d per process, and takes each process's CPU time from /proc
// over the slice and one idle second after it (what the process still does
// for the calls: writing, collecting).
func benchOpenLoop(b *testing.B, client *http.Client, procs []*benchProc, m *callMinter, rate, slices int, d time.Duration) openLoop {
	var ol openLoop
	n := int(float64(rate) * d.Seconds())
	for s := range slices {
		for k := range 2 {
			j := (s + k) % 2
			calls := m.mintN(b, n, "get_order")
			before := procs[j].cpu(b)
			lat, err := openLoopSlice(client, procs[j].url, calls, rate)
			if err != nil {
				b.Fatalf("%s: %v\n%s stderr:\n%s", procs[j].name, err, procs[j].name, procs[j].stderr())
			}
			time.Sleep(time.Second)
			ol.cpu[j] += procs[j].cpu(b) - before
			ol.calls[j] += n
			ol.lat[j] = append(ol.lat[j], lat...)
			procs[j].calls += n
		}
	}
	return ol
}

// openLoopSlice sends every call in calls at rate per second, each on its
// own goroutine when due, and returns their latencies.
func openLoopSlice(client *http.Client, url string, calls []benchCall, rate int) ([]time.Duration, error) {
	lat := make([]time.Duration, len(calls))
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for sent := 0; sent < len(calls); time.Sleep(200 * time.Microsecond) {
		due := min(len(calls), 1+int(time.Since(start).Seconds()*float64(rate)))
		for ; sent < due; sent++ {
			i := sent
			wg.Go(func() {
				t0 := time.Now()
				if err := sendAndRead(client, url, calls[i]); err != nil {
					firstErr.CompareAndSwap(nil, err)
				}
				lat[i] = time.Since(t0)
			})
		}
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, err
	}
	return lat, nil
}

// benchSSEDelay reads n progress streams from each process, alternating, and
// returns per event the delay from the upstream's write to the client's read.
func benchSSEDelay(b *testing.B, client *http.Client, procs []*benchProc, m *callMinter, n int) [2][]time.Duration {
	calls := m.mintN(b, 2*n, "progress")
	var delays [2][]time.Duration
	for i := range n {
		for k := range 2 {
			j := (i + k) % 2
			d, err := readProgressStream(client, procs[j].url, calls[2*i+k])
			if err != nil {
				b.Fatalf("%s: %v\n%s stderr:\n%s", procs[j].name, err, procs[j].name, procs[j].stderr())
			}
			delays[j] = append(delays[j], d...)
			procs[j].calls++
		}
	}
	return delays
}

func readProgressStream(client *http.Client, url string, c benchCall) ([]time.Duration, error) {
	res, err := send(client, url, c)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return modeltest.SSEDelays(res.Body, url, 20)
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
