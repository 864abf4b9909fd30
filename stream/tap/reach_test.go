package tap

import (
	"net"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// sourceState waits until the tap's source state is want, and returns it.
func (h *harness) sourceState(want string) model.SourceState {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range h.store.Snapshot().Sources {
			if s.Name == "test-tap" && s.State == want {
				return s
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.t.Fatalf("the tap's state never became %s: %+v", want, h.store.Snapshot().Sources)
	return model.SourceState{}
}

// TestUnreachableUpstreamSaidAtStart: a tap whose upstream does not answer
// says so as it starts (failing, with why), before any call, and says
// connected once the upstream answers.
func TestUnreachableUpstreamSaidAtStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	h := startTap(t, Config{Upstream: "http://" + addr + "/mcp"})
	s := h.sourceState(model.StateFailing)
	if !strings.Contains(s.Detail, "does not answer") || !strings.Contains(s.Detail, "connection refused") ||
		!strings.Contains(s.Detail, addr) {
		t.Errorf("failing state: %q", s.Detail)
	}
	if n := len(h.store.Snapshot().Calls); n != 0 {
		t.Fatalf("%d calls: the state must come before any", n)
	}
	up, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	defer up.Close()
	if s := h.sourceState(model.StateConnected); !strings.Contains(s.Detail, "answers again") {
		t.Errorf("connected state: %q", s.Detail)
	}
}

// TestReachableUpstreamSaysNothingMore: a tap in front of a live server
// reports connected once, as before.
func TestReachableUpstreamSaysNothingMore(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	h := startTap(t, Config{Upstream: "http://" + up.Addr().String() + "/mcp"})
	time.Sleep(200 * time.Millisecond) // the check has run
	h.shutdown()
	var states []string
	for _, e := range h.store.Snapshot().Other {
		if e.Kind == model.KindSourceStatus {
			states = append(states, e.State)
		}
	}
	if strings.Join(states, " ") != "connected ended" {
		t.Errorf("states %v, want connected then ended", states)
	}
}
