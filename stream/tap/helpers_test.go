package tap

import (
	"bufio"
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

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
	"toolscope/model/modeltest"
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
	hub   *output.Hub
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
	hub := output.NewHub(store) // redacting as cli's does: the credential header too
	hub.Redactor = model.NewRedactor(model.RedactionConfig{Names: []string{cfg.CredentialHeader}})
	tp, err := New(cfg, hub)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := tp.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	h := &harness{t: t, tap: tp, store: store, hub: hub, url: "http://" + tp.Addr()}
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
		for _, e := range c.Timeline() {
			fmt.Fprintf(&b, "   %s\n", model.TextLine(e))
		}
	}
	for _, e := range s.Other {
		fmt.Fprintf(&b, "other %s\n", model.TextLine(e))
	}
	return b.String()
}

// allEvents lists every event the snapshot kept.
var allEvents = modeltest.AllEvents

func hasWarning(s *model.Snapshot, code string) bool {
	for _, e := range allEvents(s) {
		if e.Kind == model.KindWarning && e.Code == code {
			return true
		}
	}
	return false
}

// mintToken signs a context token for this tap's instance like the
// platform does; mutate edits the claims first.
func mintToken(t testing.TB, secret []byte, tool string, meta map[string]any, mutate func(jwt.MapClaims)) string {
	t.Helper()
	return modeltest.MintToken(t, secret, testInstanceID, tool, meta, mutate)
}

// The _meta AgentArea sends with a call, and a tools/call body: the kit's.
var (
	contractMeta = modeltest.ContractMeta
	callBody     = modeltest.CallBody
)

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

// heldUpstream is a server that accepts notifications (202) and answers a
// call with an event stream holding one progress event for token 9, then
// holds the stream open until the client leaves or the test ends.
func heldUpstream(t *testing.T) *httptest.Server {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("notifications/cancelled")) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, progressEvent, 9, 1)
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(upstream.Close)
	t.Cleanup(func() { close(release) })
	return upstream
}

// openHeldCall sends a tools/call of tool with id 9 (and progress token 9)
// on a connection of its own to a tap over heldUpstream, and returns its
// response body, open, once the tap has seen the call's progress.
func (h *harness) openHeldCall(t *testing.T, tool string) io.Closer {
	t.Helper()
	res, err := http.Post(h.url, "application/json", bytes.NewReader(callBody(t, 9, tool, map[string]any{}, map[string]any{"progressToken": 9})))
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(res.Body).ReadString('\n')
	t.Cleanup(func() { res.Body.Close() })
	h.waitFor(tool+" in flight", func(s *model.Snapshot) bool {
		for _, c := range s.Calls {
			if c.Tool == tool && c.Progress.Sent == 1 {
				return true
			}
		}
		return false
	})
	return res.Body
}
