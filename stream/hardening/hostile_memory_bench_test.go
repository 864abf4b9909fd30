//go:build linux

package hardening_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHostileMemory measures the real binary's resident memory under
// the hostile sources of docs/security.md's Memory ceiling, each from a
// server written here on loopback, with default flags:
//
//   - long-event-ids: a live feed of 400 events with distinct 1 MiB event_ids;
//   - huge-history-event: a history page holding one 256 MiB event;
//   - endless-history: a history that always says has_next, read to its
//     1,000-page bound (100 events of 1 KB a page);
//   - running-calls: a live feed of 50,000 tool calls that never finish;
//   - finished-calls: a live feed of 30,000 calls with 2 KB arguments and
//     8 KB results;
//   - held-uploads: 100 uploads of 8 MiB to `tap`, each held one byte short
//     of its Content-Length.
//
// The feed cases run `watch --output json` (its lines read as they come),
// the last one `tap --output json` before a loopback upstream. Each reports
// the process's peak resident size (peak-rss-MiB, VmHWM) and its resident
// size once the workload is in and the process has been idle 2.5 s
// (rss-MiB, VmRSS: idle memory is returned by then) and the CPU time it
// took to get there (cpu-s, user+sys). It fails past the documented ceiling
// of 512 MiB, and when a feed case's output shows its source was not read
// to the end (its last event, the warning it must draw). Each case takes a
// few seconds (20 s for the long ids under load: the SSE client splits
// each 2 MiB frame); run it with -benchtime 1x.
// TOOLSCOPE_BENCH_HOSTILE_SCALE=N multiplies every count
// (events, calls, uploads, the huge event's size, a history page's events)
// for a bigger run; TOOLSCOPE_BENCH_BIN measures another build.
func BenchmarkHostileMemory(b *testing.B) {
	scale := 1
	if v := os.Getenv("TOOLSCOPE_BENCH_HOSTILE_SCALE"); v != "" {
		var err error
		if scale, err = strconv.Atoi(v); err != nil || scale < 1 {
			b.Fatalf("TOOLSCOPE_BENCH_HOSTILE_SCALE=%q: want a whole number from 1", v)
		}
	}
	cases := []struct {
		name string
		run  func(b *testing.B, bin string) memoryFigures
	}{
		{"long-event-ids", func(b *testing.B, bin string) memoryFigures {
			return runHostileWatch(b, bin, nil, longEventIDs(400*scale, 1<<20), map[string]int{`"event_id":"00000399`: 1})
		}},
		{"huge-history-event", func(b *testing.B, bin string) memoryFigures {
			return runHostileWatch(b, bin, hugeHistoryEvent(int64(scale)<<28), nil, map[string]int{`"code":"history_event_too_large"`: 1, `"event_id":"h-2"`: 1})
		}},
		{"endless-history", func(b *testing.B, bin string) memoryFigures {
			return runHostileWatch(b, bin, endlessHistory(100*scale), nil, map[string]int{`"code":"history_truncated"`: 1, `"event_id":"p1000-0"`: 1})
		}},
		{"running-calls", func(b *testing.B, bin string) memoryFigures {
			return runHostileWatch(b, bin, nil, feedCallsLive(50000*scale, 0, 0), map[string]int{`"kind":"tool.call"`: 50000*scale + 1})
		}},
		{"finished-calls", func(b *testing.B, bin string) memoryFigures {
			return runHostileWatch(b, bin, nil, feedCallsLive(30000*scale, 2000, 8000), map[string]int{`"kind":"tool.result"`: 30000 * scale})
		}},
		{"held-uploads", func(b *testing.B, bin string) memoryFigures {
			return runHeldUploads(b, bin, 100*scale, 8<<20)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bin := toolscopeBinary(b)
			var worst memoryFigures
			for range b.N {
				m := c.run(b, bin)
				worst.peak = max(worst.peak, m.peak)
				worst.rss = max(worst.rss, m.rss)
				worst.cpu = max(worst.cpu, m.cpu)
			}
			b.ReportMetric(float64(worst.peak)/(1<<20), "peak-rss-MiB")
			b.ReportMetric(float64(worst.rss)/(1<<20), "rss-MiB")
			b.ReportMetric(worst.cpu.Seconds(), "cpu-s")
			if worst.peak > memoryCeiling {
				b.Errorf("peak resident %d MiB: past the documented ceiling of %d MiB", worst.peak>>20, memoryCeiling>>20)
			}
		})
	}
}

// memoryCeiling is docs/security.md's bound with default flags.
const memoryCeiling = 512 << 20

// idleSettle is how long a process is left idle before its resident size is
// read: past cli/idlememory.go's check of every half second.
const idleSettle = 2500 * time.Millisecond

// memoryFigures is a process's peak and settled resident size, in bytes;
// cpu is its CPU time (user+sys) until then.
type memoryFigures struct {
	peak, rss int64
	cpu       time.Duration
}

// hostileTask is the task every hostile feed serves.
const hostileTask = "task-hostile"

// hostileEnd is the tool call id of the feed's last call: once the
// watcher's output shows it, everything before it has been read.
const hostileEnd = "hostile-end-of-workload"

// sseWrite writes one live feed event (the platform's envelope).
func sseWrite(w io.Writer, event, id string, at int, data string) {
	ts := time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC).Add(time.Duration(at) * time.Millisecond).Format(time.RFC3339Nano)
	fmt.Fprintf(w, "id: %s\nevent: %s\ndata: {\"event_type\":%q,\"event_id\":%q,\"timestamp\":%q,\"data\":%s}\n\n", id, event, event, id, ts, data)
}

// longEventIDs writes n workflow notes, each with a distinct id of idLen bytes.
func longEventIDs(n, idLen int) func(w *bufio.Writer) {
	return func(w *bufio.Writer) {
		pad := strings.Repeat("x", idLen-8)
		for i := range n {
			sseWrite(w, "workflow.note", fmt.Sprintf("%08d", i)+pad, i, `{"task_id":"`+hostileTask+`","message":"m"}`)
		}
	}
}

// feedCallsLive writes n tool calls; with resultBytes > 0 each is finished
// by a successful result of that size, else it stays running. Each call's
// arguments hold argBytes of text.
func feedCallsLive(n, argBytes, resultBytes int) func(w *bufio.Writer) {
	return func(w *bufio.Writer) {
		args, result := strings.Repeat("a", argBytes), strings.Repeat("r", resultBytes)
		for i := range n {
			ids := fmt.Sprintf(`"task_id":%q,"tool_name":"mcp__sheets__read_sheet","tool_call_id":"call-%d"`, hostileTask, i)
			sseWrite(w, "tool.call", fmt.Sprintf("ev-%d-call", i), 2*i, `{`+ids+`,"iteration":1,"arguments":{"range":"A1:Z100","note":"`+args+`"}}`)
			if resultBytes > 0 {
				sseWrite(w, "tool.result", fmt.Sprintf("ev-%d-result", i), 2*i+1, `{`+ids+`,"success":true,"result":"`+result+`","execution_time":0.5,"iteration":1}`)
			}
		}
	}
}

// historyItem is one history page item: a workflow note of about 1 KB.
func historyItem(id string, at int) string {
	ts := time.Date(2026, 7, 29, 9, 0, 0, 0, time.UTC).Add(time.Duration(at) * time.Millisecond).Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"id":%q,"task_id":%q,"timestamp":%q,"event_type":"workflow.note","message":"m","metadata":{"task_id":%q,"pad":%q}}`,
		id, hostileTask, ts, hostileTask, strings.Repeat("p", 900))
}

// hugeHistoryEvent answers one history page: a small event, one of size
// bytes, another small one.
func hugeHistoryEvent(size int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 64<<10)
		fmt.Fprint(bw, `{"events":[`+historyItem("h-1", 1)+`,{"id":"h-huge","event_type":"workflow.note","metadata":{"pad":"`)
		chunk := strings.Repeat("a", 64<<10)
		for left := size; left > 0; left -= int64(len(chunk)) {
			bw.WriteString(chunk[:min(int64(len(chunk)), left)])
		}
		fmt.Fprint(bw, `"}},`+historyItem("h-2", 2)+`],"has_next":false}`)
		bw.Flush()
	}
}

// endlessHistory answers every page with perPage new events and has_next.
func endlessHistory(perPage int) http.HandlerFunc {
	var pages atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		p := int(pages.Add(1))
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteString(`{"events":[`)
		for i := range perPage {
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(historyItem(fmt.Sprintf("p%d-%d", p, i), p*perPage+i))
		}
		bw.WriteString(`],"has_next":true}`)
		bw.Flush()
	}
}

// runHostileWatch runs `watch --output json` of one task feed whose history
// endpoint is history (nil: an empty page) and whose live stream writes
// live (nil: nothing) and then a last call, hostileEnd. Once the output
// shows that call and the process has been idle idleSettle, its memory is
// read; then the feed ends the task and the watcher must exit 0, its output
// holding at least want[s] lines with each string s (the workload was read
// to its end, not given up early).
func runHostileWatch(b *testing.B, bin string, history http.HandlerFunc, live func(w *bufio.Writer), want map[string]int) memoryFigures {
	b.Helper()
	release := make(chan struct{})
	var connections atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/stream") {
			if history != nil {
				history(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"events":[],"has_next":false}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 64<<10)
		fmt.Fprintf(bw, "event: connected\ndata: {\"event_type\":\"connected\",\"data\":{\"task_id\":%q}}\n\n", hostileTask)
		// A reconnect (none is expected) gets only the end, not the workload again.
		if connections.Add(1) == 1 && live != nil {
			live(bw)
		}
		sseWrite(bw, "tool.call", "ev-end", 1<<30, `{"task_id":"`+hostileTask+`","tool_name":"mcp__end__end","tool_call_id":"`+hostileEnd+`","iteration":1,"arguments":{}}`)
		bw.Flush()
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		sseWrite(bw, "task.completed", "ev-completed", 1<<30+1, `{"task_id":"`+hostileTask+`"}`)
		bw.Flush()
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	feedURL := srv.URL + "/v1/workspaces/ws-hostile/agents/agent-hostile/tasks/" + hostileTask + "/events/stream"
	cmd := exec.Command(bin, "watch", "--output", "json", feedURL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	stderr := &cappedBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	ended := make(chan struct{})
	counted := make(chan map[string]int, 1)
	go func() {
		// Lines can be megabytes long: read in slices (a line's start is
		// always a slice's start), count line ends.
		r := bufio.NewReaderSize(stdout, 1<<20)
		seen := map[string]int{}
		lineStart := true
		for {
			chunk, err := r.ReadSlice('\n')
			if lineStart {
				for s := range want {
					if bytes.Contains(chunk, []byte(s)) {
						seen[s]++
					}
				}
			}
			lineStart = bytes.HasSuffix(chunk, []byte("\n"))
			if lineStart {
				seen["lines"]++
			}
			if bytes.Contains(chunk, []byte(`"`+hostileEnd+`"`)) {
				select {
				case <-ended:
				default:
					close(ended)
				}
			}
			if err != nil && err != bufio.ErrBufferFull {
				counted <- seen
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(3 * time.Minute):
		b.Fatalf("the watcher's output never showed the workload's end: %s", stderr)
	}
	time.Sleep(idleSettle)
	var m memoryFigures
	m.rss, m.peak = procMemory(b, cmd.Process.Pid)
	m.cpu = procCPU(b, cmd.Process.Pid)
	close(release)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b.Fatalf("toolscope watch: %v: %s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		b.Fatalf("toolscope watch did not exit within 30 s of the task's end: %s", stderr)
	}
	if n := connections.Load(); n != 1 {
		b.Logf("the feed connected %d times", n)
	}
	seen := <-counted
	for s, n := range want {
		if seen[s] < n {
			b.Errorf("%d lines of output hold %s, want at least %d (%d lines in all)", seen[s], s, n, seen["lines"])
		}
	}
	return m
}

// runHeldUploads starts `tap --output json` before a loopback upstream and
// sends it n tools/call uploads with a Content-Length of size bytes, each
// one byte short and then held open. Once every upload is written and the
// tap has been idle idleSettle, its memory is read; then the uploads are
// dropped and the tap is stopped.
func runHeldUploads(b *testing.B, bin string, n, size int) memoryFigures {
	b.Helper()
	var received atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.Copy(io.Discard, r.Body)
		received.Add(got)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	}))
	defer upstream.Close()
	defer upstream.CloseClientConnections()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	cmd := exec.Command(bin, "tap", "--upstream", upstream.URL+"/mcp", "--listen", "127.0.0.1:0", "--output", "json")
	cmd.Stdout = devNull
	tp := startProc(b, "tap", cmd)
	u, err := url.Parse(tp.url)
	if err != nil {
		b.Fatal(err)
	}
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{"data":"`)
	body := []byte(head + strings.Repeat("u", size-len(head)-1)) // one byte short of size
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range conns {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			b.Fatal(err)
		}
		conns[i] = c
		wg.Go(func() {
			c.SetWriteDeadline(time.Now().Add(time.Minute))
			req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", u.Host, size)
			if _, err := c.Write(append([]byte(req), body...)); err != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Logf("%d of %d uploads could not be written in full within a minute", f, n)
	}
	time.Sleep(idleSettle)
	var m memoryFigures
	m.rss, m.peak = procMemory(b, cmd.Process.Pid)
	m.cpu = procCPU(b, cmd.Process.Pid)
	for _, c := range conns {
		c.Close()
	}
	tp.stop(b, true)
	b.Logf("upstream received %d MiB", received.Load()>>20)
	return m
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
