package tap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// BenchmarkTap measures the same upstream three ways: direct, through a bare
// httputil.ReverseProxy (the ceiling for this design) and through the tap
// with parsing, token verification and a store attached. The three ways are
// interleaved within each sub-benchmark so that load from elsewhere on the
// machine hits them alike; each reports its own figures and the tap's
// ratios (tap/bare for latency and throughput, tap/direct for SSE delay).
func BenchmarkTap(b *testing.B) {
	upstream := httptest.NewServer(benchUpstream())
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	// The bare proxy is configured as the tap's (transport, flushing, buffer
	// pool), with nothing attached: the difference is the tap's own work.
	bare := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport:     newTransport(),
		FlushInterval: -1,
		ErrorLog:      discardLog,
		BufferPool:    copyBuffers,
	})
	defer bare.Close()
	store := model.NewStore(model.Options{})
	tp, err := New(Config{Name: "bench", Listen: "127.0.0.1:0", Upstream: upstream.URL, Secrets: [][]byte{testSecret},
		InstanceID: testInstanceID, InstanceName: "Bench"}, output.NewHub(store))
	if err != nil {
		b.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		b.Fatal(err)
	}
	defer tp.Shutdown(context.Background())

	ways := []string{upstream.URL, bare.URL, "http://" + tp.Addr()}
	names := []string{"direct", "bare", "tap"}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	calls := newBenchCalls(b, 8192)

	b.Run("latency", func(b *testing.B) {
		lat := make([][]time.Duration, 3)
		for i := 0; i < b.N; i++ {
			for k := range 3 {
				j := (i + k) % 3
				start := time.Now()
				body, token := calls.next()
				if err := benchCall(client, ways[j], body, token); err != nil {
					b.Fatal(err)
				}
				lat[j] = append(lat[j], time.Since(start))
			}
		}
		for j, name := range names {
			b.ReportMetric(us(pct(lat[j], 50)), name+"-p50-µs")
			b.ReportMetric(us(pct(lat[j], 99)), name+"-p99-µs")
		}
		b.ReportMetric(ratio(pct(lat[2], 50), pct(lat[1], 50)), "tap/bare-p50")
		b.ReportMetric(ratio(pct(lat[2], 99), pct(lat[1], 99)), "tap/bare-p99")
	})

	b.Run("throughput-50-clients", func(b *testing.B) {
		const clients, perRound = 50, 600
		var elapsed, cpu [3]time.Duration
		for i := 0; i < b.N; i++ {
			for k := range 3 {
				j := (i + k) % 3
				cpu0 := processCPU()
				d, err := benchConcurrent(client, ways[j], calls, clients, perRound)
				if err != nil {
					b.Fatal(err)
				}
				elapsed[j] += d
				cpu[j] += processCPU() - cpu0
			}
		}
		var rps, cpuPer [3]float64
		for j, name := range names {
			rps[j] = float64(perRound*b.N) / elapsed[j].Seconds()
			cpuPer[j] = us(cpu[j]) / float64(perRound*b.N)
			b.ReportMetric(rps[j], name+"-req/s")
			b.ReportMetric(cpuPer[j], name+"-cpu-µs/req")
		}
		b.ReportMetric(rps[2]/rps[1], "tap/bare-thru")
		b.ReportMetric(cpuPer[2]/cpuPer[1], "tap/bare-cpu")
	})

	b.Run("sse-progress-delay", func(b *testing.B) {
		delays := make([][]time.Duration, 3)
		var broken [3]int
		for i := 0; i < b.N; i++ {
			for k := range 3 {
				j := (i + k) % 3
				body, token := calls.next()
				d, err := benchStream(client, ways[j]+"/sse", body, token)
				if err != nil && j == 1 && broken[j] < 5 {
					// The bare ReverseProxy now and then breaks a stream that
					// starts while it still forwards the request body ("use of
					// closed network connection"); the tap, which reads the
					// body first, does not. Count it and read another stream.
					broken[j]++
					d, err = benchStream(client, ways[j]+"/sse", body, token)
				}
				if err != nil {
					b.Fatal(names[j], err)
				}
				delays[j] = append(delays[j], d...)
			}
		}
		b.ReportMetric(float64(broken[1]), "bare-broken-streams")
		for j, name := range names {
			b.ReportMetric(us(pct(delays[j], 50)), name+"-p50-µs")
			b.ReportMetric(us(slices.Max(delays[j])), name+"-max-µs")
		}
		b.ReportMetric(ratio(pct(delays[2], 50), pct(delays[0], 50)), "tap/direct-p50")
		b.ReportMetric(float64(slices.Max(delays[2]))/float64(time.Millisecond), "tap-max-ms")
	})
	tp.Shutdown(context.Background())
	if s := store.Snapshot(); s.Events == 0 {
		b.Fatal("the tap reported nothing")
	}
}

// benchUpstream answers tools/call with a small result, or on /sse with 20
// progress events 1 ms apart, each stamped with the time it was written.
func benchUpstream() http.Handler {
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/sse" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(result)))
			w.Write(result)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		rc := http.NewResponseController(w)
		rc.Flush()
		for i := 1; i <= 20; i++ {
			time.Sleep(time.Millisecond)
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":%d,\"total\":20,\"message\":\"t=%d\"}}\n\n", i, time.Now().UnixNano())
			rc.Flush()
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", result)
	})
}

func benchRequest(url string, body []byte, token string) *http.Request {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer static-credential")
	req.Header.Set(model.ContextHeader, token)
	return req
}

func benchCall(client *http.Client, url string, body []byte, token string) error {
	res, err := client.Do(benchRequest(url, body, token))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s: HTTP %d", url, res.StatusCode)
	}
	return err
}

// benchCalls are distinct calls (each its own task, tool call id and token),
// as an agent makes them: a store joining them all into one call would
// measure something no one runs.
type benchCalls struct {
	mu     sync.Mutex
	i      int
	bodies [][]byte
	tokens []string
}

func newBenchCalls(b testing.TB, n int) *benchCalls {
	c := &benchCalls{}
	for i := range n {
		meta := contractMeta(fmt.Sprintf("task-%d", i), fmt.Sprintf("call-%d", i), 1)
		c.bodies = append(c.bodies, callBody(b, 1, "lookup", map[string]any{"orderId": "A-17"}, meta))
		jti := fmt.Sprintf("0b8f6a1e-6a8e-4f0e-b3c1-%012d", i) // a fresh token each call, as the platform's
		c.tokens = append(c.tokens, mintToken(b, testSecret, "lookup", meta, func(m jwt.MapClaims) { m["jti"] = jti }))
	}
	return c
}

func (c *benchCalls) next() ([]byte, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.i = (c.i + 1) % len(c.bodies)
	return c.bodies[c.i], c.tokens[c.i]
}

// benchConcurrent runs total calls from n concurrent clients.
func benchConcurrent(client *http.Client, url string, calls *benchCalls, n, total int) (time.Duration, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	jobs := make(chan struct{}, total)
	for range total {
		jobs <- struct{}{}
	}
	close(jobs)
	start := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				body, token := calls.next()
				if err := benchCall(client, url, body, token); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), first
}

// benchStream reads one progress stream and returns, per event, the delay
// between the upstream writing it and the client reading it.
func benchStream(client *http.Client, url string, body []byte, token string) ([]time.Duration, error) {
	res, err := client.Do(benchRequest(url, body, token))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return modeltest.SSEDelays(res.Body, url, 20)
}

// processCPU is the CPU time this process has used (user and system): on a
// machine shared with other work it measures cost where wall time cannot.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
