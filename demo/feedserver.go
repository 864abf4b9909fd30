package demo

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/r3labs/sse/v2"
)

// feedServer serves each task's event feed over SSE at AgentArea's real path,
// GET /v1/workspaces/{workspace}/agents/{agent}/tasks/{task}/events/stream,
// with r3labs/sse's server: one stream per task, events framed as
// `event: <event_type>` and one `data:` line holding the envelope
// {"event_type","event_id","timestamp","data"}.
type feedServer struct {
	sse    *sse.Server
	http   *httptest.Server
	apiKey string

	mu          sync.Mutex
	tasks       map[string]*task
	subscribers int
	idle        *sync.Cond // signalled when subscribers drops
}

func startFeedServer(apiKey string) *feedServer {
	f := &feedServer{sse: sse.New(), apiKey: apiKey, tasks: make(map[string]*task)}
	f.idle = sync.NewCond(&f.mu)
	// Every subscriber gets the task's history first, then live events, as
	// AgentArea replays stored events before going live (the client dedups by
	// event_id), so a watcher that connects late or reconnects loses nothing.
	f.sse.AutoReplay = true
	f.sse.AutoStream = false
	f.sse.OnSubscribe = func(string, *sse.Subscriber) { f.count(+1) }
	f.sse.OnUnsubscribe = func(string, *sse.Subscriber) { f.count(-1) }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/workspaces/{workspace}/agents/{agent}/tasks/{task}/events/stream", f.serveStream)
	f.http = httptest.NewServer(mux)
	return f
}

// API is the base URL of the simulated platform's API.
func (f *feedServer) API() string { return f.http.URL }

func (f *feedServer) count(d int) {
	f.mu.Lock()
	f.subscribers += d
	f.mu.Unlock()
	f.idle.Broadcast()
}

// open creates a task's stream; its first frame is `connected`.
func (f *feedServer) open(t *task) {
	f.mu.Lock()
	f.tasks[t.ID] = t
	f.mu.Unlock()
	f.sse.CreateStream(t.ID)
	f.publish(t, "connected", map[string]any{"task_id": t.ID, "agent_id": t.AgentID,
		"execution_id": t.ExecutionID, "message": "Connected to task event stream",
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano)})
}

// envelope is the feed's JSON, fields in the order the contract shows.
type envelope struct {
	EventType string         `json:"event_type"`
	EventID   string         `json:"event_id"`
	Timestamp string         `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

// publish puts one event on the task's feed.
func (f *feedServer) publish(t *task, eventType string, data map[string]any) {
	b, err := json.Marshal(envelope{EventType: eventType, EventID: newUUID(),
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano), Data: data})
	if err != nil {
		return // data is built by the platform from JSON values; cannot fail
	}
	f.sse.Publish(t.ID, &sse.Event{Event: []byte(eventType), Data: b})
}

func (f *feedServer) serveStream(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	t := f.tasks[r.PathValue("task")]
	f.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+f.apiKey)) != 1 {
		writeDetail(w, http.StatusUnauthorized, "Not authenticated")
		return
	}
	if t == nil || t.Workspace != r.PathValue("workspace") || t.AgentID != r.PathValue("agent") {
		writeDetail(w, http.StatusNotFound, "Task not found")
		return
	}
	// r3labs picks the stream from ?stream=; the path names the task.
	r2 := r.Clone(r.Context())
	q := r2.URL.Query()
	q.Set("stream", t.ID)
	r2.URL.RawQuery = q.Encode()
	// An id the stream does not know (a client quoting an event_id) gets the
	// full replay, as AgentArea does; r3labs would refuse a non-number.
	if id := r2.Header.Get("Last-Event-ID"); id != "" {
		if _, err := strconv.Atoi(id); err != nil {
			r2.Header.Del("Last-Event-ID")
		}
	}
	f.sse.ServeHTTP(w, r2)
}

func writeDetail(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}

// Close waits (bounded) for watchers to leave, then ends every stream and the
// server. r3labs leaks a goroutine per subscriber still connected when its
// stream closes, so they are given the chance to go first.
func (f *feedServer) Close(grace time.Duration) {
	deadline := time.Now().Add(grace)
	stop := time.AfterFunc(grace, f.idle.Broadcast)
	f.mu.Lock()
	for f.subscribers > 0 && time.Now().Before(deadline) {
		f.idle.Wait()
	}
	f.mu.Unlock()
	stop.Stop()
	f.sse.Close()
	f.http.CloseClientConnections()
	f.http.Close()
}
