package tap

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
	"toolscope/output"
)

// testSecret is a context secret of a valid length (32..512 characters).
var testSecret = []byte("s3cret-for-toolscope-tap-tests-0123456789")

const testInstanceID = "7c1e4b8a-0d4f-4c4e-9a55-2f0b6a7d9e11"

// harness is a tap started on loopback in front of upstream, with a store.
type harness struct {
	t     *testing.T
	tap   *Tap
	store *model.Store
	url   string
}

func startTap(t *testing.T, cfg Config) *harness {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Name == "" {
		cfg.Name = "test-tap"
	}
	store := model.NewStore(model.Options{})
	tp, err := New(cfg, output.NewHub(store))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := tp.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	h := &harness{t: t, tap: tp, store: store, url: "http://" + tp.Addr()}
	t.Cleanup(func() { h.shutdown() })
	return h
}

// shutdown stops the tap and waits until every event is in the store.
func (h *harness) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.tap.Shutdown(ctx)
}

// waitFor polls the store until cond holds.
func (h *harness) waitFor(what string, cond func(*model.Snapshot) bool) *model.Snapshot {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := h.store.Snapshot()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; store has:\n%s", what, dump(s))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitCall waits for a call for tool that has ended.
func (h *harness) waitCall(tool string) *model.Call {
	h.t.Helper()
	var found *model.Call
	h.waitFor("finished call "+tool, func(s *model.Snapshot) bool {
		for _, c := range s.Calls {
			if c.Tool == tool && c.Finished() {
				found = c
				return true
			}
		}
		return false
	})
	return found
}

func dump(s *model.Snapshot) string {
	var b strings.Builder
	for _, c := range s.Calls {
		fmt.Fprintf(&b, "call %s tool=%s status=%s attempts=%d sent=%d\n", c.ID, c.Tool, c.Status, len(c.Attempts), c.Progress.Sent)
		for _, e := range c.Timeline {
			fmt.Fprintf(&b, "   %s\n", model.TextLine(e))
		}
	}
	for _, e := range s.Other {
		fmt.Fprintf(&b, "other %s\n", model.TextLine(e))
	}
	return b.String()
}

// events returns every event the store kept, calls' timelines included.
func allEvents(s *model.Snapshot) []model.Event {
	var out []model.Event
	for _, c := range s.Calls {
		out = append(out, c.Timeline...)
		out = append(out, c.Warnings...)
	}
	return append(out, s.Other...)
}

func hasWarning(s *model.Snapshot, code string) bool {
	for _, e := range allEvents(s) {
		if e.Kind == model.KindWarning && e.Code == code {
			return true
		}
	}
	return false
}

// mintToken signs a context token like the platform does; mutate edits the
// claims first.
func mintToken(t testing.TB, secret []byte, tool string, meta map[string]any, mutate func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": "agentarea", "aud": testInstanceID, "iat": now.Unix(), "exp": now.Add(300 * time.Second).Unix(),
		"jti": "0b8f6a1e-6a8e-4f0e-b3c1-7c2d9e4f5a6b", "tool": tool,
	}
	for k, v := range meta {
		if strings.HasPrefix(k, "agentarea/") {
			claims[strings.TrimPrefix(k, "agentarea/")] = v
		}
	}
	if mutate != nil {
		mutate(claims)
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// contractMeta is the _meta AgentArea sends with a call.
func contractMeta(task, toolCall string, progressToken any) map[string]any {
	return map[string]any{
		"progressToken":             progressToken,
		"agentarea/protocol":        "1",
		"agentarea/task_id":         task,
		"agentarea/tool_call_id":    toolCall,
		"agentarea/workspace_id":    "1b2e0c4d-aaaa-bbbb-cccc-123456789abc",
		"agentarea/idempotency_key": task + ":" + toolCall,
	}
}

// callBody is a tools/call request body.
func callBody(t testing.TB, id any, tool string, args any, meta map[string]any) []byte {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to url with headers and returns status, headers and body.
func post(t testing.TB, url string, body []byte, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	return res.StatusCode, res.Header, b
}

// hits counts requests an upstream received.
type hits struct {
	mu sync.Mutex
	n  int
}

func (h *hits) add() {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
}

func (h *hits) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}
