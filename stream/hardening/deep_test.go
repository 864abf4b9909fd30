package hardening_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/decoder/feedevent"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/output"
	"toolscope/stream/feed"
	"toolscope/ui"
)

// nested is JSON nested n arrays deep.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// deepUpstream answers by the marker in the request: a small result, a deep
// result as JSON or as an event stream. It keeps every body it received.
type deepUpstream struct {
	mu     sync.Mutex
	bodies map[string][]byte
}

func (u *deepUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	marker := r.Header.Get("X-Case")
	u.mu.Lock()
	u.bodies[marker] = body
	u.mu.Unlock()
	deep := nested(100000)
	switch marker {
	case "deep-result-json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"d":%s}}}`, deep)
	case "deep-result-sse":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"structuredContent\":{\"d\":%s}}}\n\n", deep)
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}
}

func deepCall(id int, toolCallID, args string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deep","arguments":{"a":%s},"_meta":{"progressToken":%d,"agentarea/task_id":%q,"agentarea/tool_call_id":%q}}}`,
		id, args, id, testTask, toolCallID))
}

// postCase sends body through the tap with an X-Case header and returns the
// answer's bytes.
func postCase(t *testing.T, client *http.Client, url, marker string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Case", marker)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", marker, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: %v", marker, err)
	}
	return res.StatusCode, b
}

// TestDeeplyNestedJSON: JSON nested 100,000 levels (past encoding/json's
// 10,000 limit) in a request, in a result (plain and streamed) and in a feed
// event; and 9,000 levels (within it) in arguments the detail view shows.
// Bytes pass unchanged, the parsers warn instead of crashing, and the
// monitor goes on.
func TestDeeplyNestedJSON(t *testing.T) {
	deep := nested(100000)
	// The decoder on its own.
	if b := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":1,"result":` + deep + `}`)); b.Err == nil {
		t.Error("jsonrpc.Read accepted 100,000 levels")
	}
	fr := feedevent.Decode("tool.result", []byte(`{"event_type":"tool.result","event_id":"d1","data":{"tool_call_id":"x","result":`+deep+`}}`), feedevent.Options{SourceName: "f", TaskID: testTask})
	if len(fr.Warnings) == 0 && fr.Event.Kind != model.KindWarning {
		t.Errorf("DecodeFeedEvent: no warning for 100,000 levels: %+v", fr.Event)
	}

	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	up := &deepUpstream{bodies: map[string][]byte{}}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tp := startTap(t, "deep-tap", upSrv.URL, hub)
	url := "http://" + tp.Addr()
	client := newClient()
	defer client.CloseIdleConnections()

	sent := map[string][]byte{
		"deep-request":     deepCall(1, "deep-request", deep),
		"deep-result-json": deepCall(2, "deep-result-json", `1`),
		"deep-result-sse":  deepCall(3, "deep-result-sse", `1`),
		"deep-args-2000":   deepCall(4, "deep-args-2000", nested(2000)),
		"deep-args-9000":   deepCall(5, "deep-args-9000", nested(9000)),
	}
	for _, marker := range []string{"deep-request", "deep-result-json", "deep-result-sse", "deep-args-2000", "deep-args-9000"} {
		status, got := postCase(t, client, url, marker, sent[marker])
		up.mu.Lock()
		recv := up.bodies[marker]
		up.mu.Unlock()
		if status != 200 || !bytes.Equal(recv, sent[marker]) {
			t.Errorf("%s: HTTP %d, the upstream got %d bytes of %d", marker, status, len(recv), len(sent[marker]))
		}
		if strings.HasPrefix(marker, "deep-result") && !strings.Contains(string(got), deep) {
			t.Errorf("%s: the client did not get the deep result unchanged (%d bytes)", marker, len(got))
		}
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()
	codes := warningCodes(snap)
	if codes["malformed_request"] == 0 || codes["malformed_response"] < 2 {
		t.Errorf("warnings: %v", codes)
	}
	if c := findCall(snap, "deep-result-json"); c == nil || c.Status != model.StatusError {
		t.Errorf("deep JSON result: %s", describe(c))
	}

	t.Run("streamed deep result ends the call", func(t *testing.T) {
		if c := findCall(snap, "deep-result-sse"); c == nil || !c.Finished() {
			t.Errorf("deep streamed result: %s", describe(c))
		}
	})

	// Deep but valid JSON (under the 10,000 limit) in arguments: the detail
	// view must show it bounded and cheaply (it once indented all of it:
	// 2.7 GiB and seconds a frame at 9,000 levels).
	args := findCall(snap, "deep-args-9000")
	if args == nil || len(args.Arguments) == 0 {
		t.Fatalf("the deep-arguments call lost its arguments: %s", describe(args))
	}
	var before, after runtimeMem
	before.read()
	start := time.Now()
	v := render(store, ui.Options{OpenCall: args.ID}, nil)
	took := time.Since(start)
	after.read()
	alloc := after.total - before.total
	t.Logf("detail of a call with %s arguments (%d bytes): built in %v, %.1f MiB allocated, %d bytes of frame",
		"deep-args-9000", len(args.Arguments), took.Round(time.Millisecond), mib(alloc), len(v))
	if p := inertProblem(v); p != "" {
		t.Error(p)
	}
	t.Run("detail of deep arguments is cheap", func(t *testing.T) {
		if alloc > 32<<20 {
			t.Errorf("one detail build allocated %.1f MiB in %v", mib(alloc), took)
		}
	})

	// A feed event nested too deep is a warning; the call's next events land.
	log := newFeedLog()
	feedSrv := httptest.NewServer(log)
	defer feedSrv.Close()
	c := callInfo{Task: testTask, ToolCallID: "deep-feed", Tool: "work"}
	log.toolCall(c)
	log.publishRaw("tool.progress", `"tool.progress"`, `{"task_id":"`+testTask+`","tool_call_id":"deep-feed","progress":1,"message":`+deep+`}`)
	log.progress(c, 2, 2)
	log.result(c)
	log.publish("task.completed", map[string]any{})
	fstore := model.NewStore(model.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := feed.Run(ctx, feedConfig(feedSrv.URL, "deep-feed"), output.NewHub(fstore)); err != nil {
		t.Fatalf("feed: %v", err)
	}
	fs := fstore.Snapshot()
	k := findCall(fs, "deep-feed")
	if k == nil || k.Status != model.StatusOK || k.Progress.Relayed != 1 {
		t.Errorf("feed call after a deep event: %s", describe(k))
	}
	if codes := warningCodes(fs); len(codes) == 0 {
		t.Error("no warning for the deep feed event")
	}
}
