//go:build unix

package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// shortFeed serves a task's feed: two tool events 100 ms apart, then
// task.completed; its history (the URL without /stream) is an empty page.
func shortFeed(w http.ResponseWriter, r *http.Request) {
	task, live := strings.CutSuffix(r.URL.Path[strings.Index(r.URL.Path, "/tasks/")+len("/tasks/"):], "/events/stream")
	if !live {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"events":[],"has_next":false}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i, typ := range []string{"tool.call", "tool.result", "task.completed"} {
		time.Sleep(100 * time.Millisecond)
		fmt.Fprintf(w, "event: %s\ndata: {\"event_type\":%q,\"event_id\":\"%s-%d\",\"data\":{\"task_id\":%q,\"tool_name\":\"read\",\"tool_call_id\":\"call_1\",\"success\":true}}\n\n", typ, typ, task, i, task)
		fl.Flush()
	}
}

// TestWatchSaysOutOfFileDescriptorsOnce: with more feeds than open files
// allowed (ulimit -n 64, 100 feeds), the process says once that it is out
// of file descriptors, with the limit and how to raise it, the other
// retries say it short, and every feed still ends as others free theirs.
func TestWatchSaysOutOfFileDescriptorsOnce(t *testing.T) {
	toolscope, _ := stdioBins(t)
	srv := httptest.NewServer(http.HandlerFunc(shortFeed))
	defer srv.Close()
	args := []string{"-c", `ulimit -n 64 && exec "$0" "$@"`, toolscope, "watch", "--output", "text", "--max-backoff", "1s"}
	const feeds = 100
	for i := range feeds {
		args = append(args, fmt.Sprintf("%s/v1/workspaces/ws/agents/a/tasks/task-%03d/events/stream", srv.URL, i))
	}
	cmd := exec.Command("/bin/sh", args...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("watch did not end within 60 s:\n%.3000s", out)
	}
	text := string(out)
	if err != nil {
		t.Fatalf("watch: %v\n%.3000s", err, text)
	}
	ended := strings.Count(text, "state=ended detail=task ended")
	whole := strings.Count(text, "out of file descriptors: the limit is 64 open files (ulimit -n), and each feed holds a connection")
	short := strings.Count(text, "out of file descriptors: the limit is 64 open files")
	if ended != feeds || whole != 1 || short < 2 || strings.Contains(text, "too many open files") {
		t.Fatalf("%d of %d feeds ended; the whole account said %d times (want 1), %d in all; output:\n%.3000s", ended, feeds, whole, short, text)
	}
}
