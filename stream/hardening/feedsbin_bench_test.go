//go:build linux

package hardening_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWatchFeedsOutOfProcess measures `watch --output json` of many
// task feeds at once as a user runs it: the real binary against a loopback
// SSE server serving every feed, each with 5 calls of 20 progress events
// (22 events a call), one event per 100 ms (11 s a feed), then
// task.completed. In the same run a bare client (this test binary run
// again: net/http reading every stream's lines, nothing decoded) reads the
// same feeds: the floor of receiving them on this machine.
//
// It reports, for toolscope and for the bare client, the CPU seconds
// (user+sys of the process, over its whole run) per 1,000 events and the
// peak resident size, and the ratio of the two CPU figures; it fails when
// toolscope's lines do not hold every tool event exactly once. The target
// (issue 23) at 500 feeds: at most 0.15 CPU s per 1,000 events and 256 MiB
// peak. Run it with -benchtime 1x: one iteration is the whole workload
// (about 15 s for each process).
//
// TOOLSCOPE_BENCH_BIN measures another build (e.g. an earlier commit's) in
// its place.
func BenchmarkWatchFeedsOutOfProcess(b *testing.B) {
	for _, feeds := range []int{200, 500} {
		b.Run("feeds="+strconv.Itoa(feeds), func(b *testing.B) { benchWatchFeeds(b, feeds) })
	}
}

// The workload of one feed.
const (
	feedCalls      = 5
	feedProgress   = 20
	feedEventEvery = 100 * time.Millisecond
	feedToolEvents = feedCalls * (feedProgress + 2) // a call, its progress, its result
)

// bareFeedsEnv names the file of feed URLs a re-run of this binary reads.
const bareFeedsEnv = "TOOLSCOPE_BENCH_BARE_FEEDS"

func benchWatchFeeds(b *testing.B, feeds int) {
	dir := b.TempDir()
	bin := toolscopeBinary(b)
	srv := httptest.NewServer(http.HandlerFunc(serveBenchFeed))
	defer srv.Close()
	urls := make([]string, feeds)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/v1/workspaces/ws-bench/agents/agent-bench/tasks/task-%04d/events/stream", srv.URL, i)
	}
	list := filepath.Join(dir, "feeds.txt")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	want := feeds * feedToolEvents
	var ts, bare feedsRun
	for range b.N {
		bare.add(runBareFeeds(b, list, want))
		ts.add(runWatchFeeds(b, bin, urls, want))
	}
	n := float64(b.N)
	ts.report(b, "toolscope", n, want)
	bare.report(b, "bare", n, want)
	b.ReportMetric(ts.cpu.Seconds()/bare.cpu.Seconds(), "cpu-toolscope/bare")
}

// feedsRun is what one process used reading the feeds.
type feedsRun struct {
	cpu, wall   time.Duration
	peakKiB     int64
	collections int // garbage collections (toolscope's only)
}

func (r *feedsRun) add(o feedsRun) {
	r.cpu += o.cpu
	r.wall += o.wall
	r.peakKiB = max(r.peakKiB, o.peakKiB)
	r.collections += o.collections
}

func (r *feedsRun) report(b *testing.B, who string, n float64, events int) {
	b.ReportMetric(r.cpu.Seconds()/n/float64(events)*1000, who+"-cpu-s/1000events")
	b.ReportMetric(float64(r.peakKiB)/1024, who+"-peak-MiB")
	b.ReportMetric(r.wall.Seconds()/n, who+"-wall-s")
	if r.collections > 0 {
		b.ReportMetric(float64(r.collections)/n, who+"-collections")
	}
}

// usage is a finished process's CPU time and peak resident size.
func usage(b *testing.B, st *os.ProcessState, wall time.Duration) feedsRun {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no rusage")
	}
	return feedsRun{cpu: st.UserTime() + st.SystemTime(), wall: wall, peakKiB: ru.Maxrss} // KiB on Linux
}

// runWatchFeeds runs `toolscope watch --output json` of every feed to its
// end and checks its lines: every tool event once.
func runWatchFeeds(b *testing.B, bin string, urls []string, want int) feedsRun {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"watch", "--output", "json"}, urls...)...)
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1") // a line on stderr a collection
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	seen := make(map[string]bool, want)
	dups, tool := 0, 0
	kinds := map[string]int{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Kind       string `json:"kind"`
			Code       string `json:"code"`
			EventID    string `json:"event_id"`
			SourceName string `json:"source_name"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			b.Fatalf("a line that is not JSON: %v: %.200s", err, sc.Text())
		}
		kinds[ev.Kind+ev.Code]++
		if strings.HasPrefix(ev.Kind, "tool.") {
			tool++
			key := ev.SourceName + "/" + ev.EventID
			if seen[key] {
				dups++
			}
			seen[key] = true
		}
	}
	err = cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("toolscope watch: %v: %.2000s", err, stderr.String())
	}
	if tool != want || dups != 0 || len(seen) != want {
		b.Fatalf("%d tool events (%d distinct, %d twice), want %d once each; lines by kind %v", tool, len(seen), dups, want, kinds)
	}
	run := usage(b, cmd.ProcessState, wall)
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "gc ") {
			run.collections++
		}
	}
	if os.Getenv("TOOLSCOPE_BENCH_GCTRACE") != "" {
		os.WriteFile(os.Getenv("TOOLSCOPE_BENCH_GCTRACE"), []byte(stderr.String()), 0o600)
	}
	return run
}

// runBareFeeds runs the bare client over the feeds in list.
func runBareFeeds(b *testing.B, list string, want int) feedsRun {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBareFeedsProcess$")
	cmd.Env = append(os.Environ(), bareFeedsEnv+"="+list)
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("bare feeds client: %v: %s", err, out)
	}
	got := -1
	for _, line := range strings.Split(string(out), "\n") {
		if n, ok := strings.CutPrefix(line, "tool events "); ok {
			got, _ = strconv.Atoi(n)
		}
	}
	if got != want {
		b.Fatalf("bare client read %d tool events, want %d: %s", got, want, out)
	}
	return usage(b, cmd.ProcessState, wall)
}

// TestBareFeedsProcess is the bare client's process; it does nothing unless
// BenchmarkWatchFeedsOutOfProcess starts it (with bareFeedsEnv set). It
// reads every feed's stream to its end with net/http, counting the tool
// events' data lines, and prints the count.
func TestBareFeedsProcess(t *testing.T) {
	list := os.Getenv(bareFeedsEnv)
	if list == "" {
		t.Skip("run by BenchmarkWatchFeedsOutOfProcess only")
	}
	b, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024, DisableCompression: true}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for _, u := range strings.Fields(string(b)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(u)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			n := 0
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "event: tool.") {
					n++
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Printf("tool events %d\n", total)
}

// serveBenchFeed serves one task's feed: a connected frame, the calls'
// events one per feedEventEvery, then task.completed. A reconnect resumes
// after its Last-Event-ID. The history endpoint (the URL without /stream)
// answers an empty page. Event timestamps are the platform's, half a
// second apart (its relay rule kept).
func serveBenchFeed(w http.ResponseWriter, r *http.Request) {
	task := r.URL.Path[strings.Index(r.URL.Path, "/tasks/")+len("/tasks/"):]
	task, live := strings.CutSuffix(task, "/events/stream")
	if !live {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"events":[],"has_next":false}`)
		return
	}
	after := -1
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if _, err := fmt.Sscanf(id[strings.LastIndexByte(id, '-')+1:], "%d", &after); err != nil {
			after = -1
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fmt.Fprintf(w, "event: connected\ndata: {\"event_type\":\"connected\",\"data\":{\"task_id\":%q,\"message\":\"Connected to task event stream\"}}\n\n", task)
	fl.Flush()
	base := time.Date(2026, 7, 29, 10, 0, 0, 250e6, time.UTC)
	tick := time.NewTicker(feedEventEvery)
	defer tick.Stop()
	for i := after + 1; i <= feedToolEvents; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		id := fmt.Sprintf("%s-ev-%d", task, i)
		ts := base.Add(time.Duration(i) * 500 * time.Millisecond).Format(time.RFC3339Nano)
		if i == feedToolEvents {
			fmt.Fprintf(w, "event: task.completed\ndata: {\"event_type\":\"task.completed\",\"event_id\":%q,\"timestamp\":%q,\"data\":{\"task_id\":%q}}\n\n", id, ts, task)
			fl.Flush()
			return
		}
		call, step := i/(feedProgress+2), i%(feedProgress+2)
		ids := fmt.Sprintf(`"task_id":%q,"tool_name":"mcp__sheets__read_sheet","tool_call_id":"call_%d"`, task, call)
		switch step {
		case 0:
			fmt.Fprintf(w, "event: tool.call\ndata: {\"event_type\":\"tool.call\",\"event_id\":%q,\"timestamp\":%q,\"data\":{%s,\"iteration\":1,\"arguments\":{\"sheet\":\"orders\",\"range\":\"A1:Z100\"}}}\n\n", id, ts, ids)
		case feedProgress + 1:
			fmt.Fprintf(w, "event: tool.result\ndata: {\"event_type\":\"tool.result\",\"event_id\":%q,\"timestamp\":%q,\"data\":{%s,\"success\":true,\"result\":\"20 sheets read, 4120 rows\",\"execution_time\":10.0,\"iteration\":1}}\n\n", id, ts, ids)
		default:
			fmt.Fprintf(w, "event: tool.progress\ndata: {\"event_type\":\"tool.progress\",\"event_id\":%q,\"timestamp\":%q,\"data\":{%s,\"progress\":%d,\"total\":%d,\"message\":\"Reading sheet %d of %d\"}}\n\n", id, ts, ids, step, feedProgress, step, feedProgress)
		}
		fl.Flush()
	}
}
