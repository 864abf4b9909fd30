package feed

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// benchStream builds n feed events (calls of one tool.call, eight
// tool.progress and one tool.result) and a final task.completed, as one SSE
// byte stream. A lead event, if given, goes first.
func benchStream(n int, lead string) []byte {
	var b bytes.Buffer
	b.WriteString(lead)
	for i := 0; i < n; i++ {
		call, step := i/10, i%10
		id := fmt.Sprintf("ev-%09d", i)
		switch step {
		case 0:
			fmt.Fprintf(&b, "event: tool.call\ndata: {\"event_type\":\"tool.call\",\"event_id\":%q,\"timestamp\":\"2026-07-29T10:00:01.5Z\",\"data\":{\"task_id\":\"task-bench\",\"tool_name\":\"mcp__sheets__read\",\"tool_call_id\":\"call_%d\",\"iteration\":1,\"arguments\":{\"sheet\":\"orders\",\"range\":\"A1:Z100\"}}}\n\n", id, call)
		case 9:
			fmt.Fprintf(&b, "event: tool.result\ndata: {\"event_type\":\"tool.result\",\"event_id\":%q,\"timestamp\":\"2026-07-29T10:00:03Z\",\"data\":{\"task_id\":\"task-bench\",\"tool_name\":\"mcp__sheets__read\",\"tool_call_id\":\"call_%d\",\"success\":true,\"result\":\"23 sheets read, 4120 rows\",\"execution_time\":1.5,\"iteration\":1,\"source\":\"mcp\"}}\n\n", id, call)
		default:
			fmt.Fprintf(&b, "event: tool.progress\ndata: {\"event_type\":\"tool.progress\",\"event_id\":%q,\"timestamp\":\"2026-07-29T10:00:02Z\",\"data\":{\"task_id\":\"task-bench\",\"tool_name\":\"mcp__sheets__read\",\"tool_call_id\":\"call_%d\",\"progress\":%d,\"total\":8,\"message\":\"Reading sheet %d of 8\"}}\n\n", id, call, step, step)
		}
	}
	b.WriteString("event: task.completed\ndata: {\"event_type\":\"task.completed\",\"event_id\":\"ev-end\",\"data\":{\"task_id\":\"task-bench\"}}\n\n")
	return b.Bytes()
}

// benchIngest serves the stream over loopback and times one feed reading it
// into a store through a hub.
func benchIngest(b *testing.B, lead string) {
	stream := benchStream(b.N, lead)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for rest := stream; len(rest) > 0; {
			n := min(len(rest), 64<<10)
			w.Write(rest[:n])
			rest = rest[n:]
		}
	}))
	defer srv.Close()
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	b.SetBytes(int64(len(stream) / max(b.N, 1)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := modeltest.CPUTime()
	start := time.Now()
	err := Run(context.Background(), Config{URL: FeedURL(srv.URL, "ws", "a", "task-bench")}, hub)
	elapsed := time.Since(start)
	cpu := modeltest.CPUTime() - cpu0
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if snap := store.Snapshot(); snap.Events < int64(b.N) {
		b.Fatalf("%d events applied, want %d", snap.Events, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	// CPU time (client and loopback server together) tells the cost apart
	// from waiting for a core on a busy machine.
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "events/cpu-s")
}

// BenchmarkFeedIngest: small tool events, the common case.
func BenchmarkFeedIngest(b *testing.B) { benchIngest(b, "") }

// BenchmarkFeedIngestAfterLargeEvent: the same after a 1 MiB result has
// grown the SSE reader's buffer (the case the frame guard protects).
func BenchmarkFeedIngestAfterLargeEvent(b *testing.B) {
	lead := "event: tool.result\ndata: {\"event_type\":\"tool.result\",\"event_id\":\"big\",\"data\":{\"tool_call_id\":\"big\",\"success\":true,\"result\":\"" +
		strings.Repeat("x", 1<<20) + "\"}}\n\n"
	benchIngest(b, lead)
}
