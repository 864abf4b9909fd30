package tap

import (
	"net/http"
	"testing"
)

// TestAmbiguousCancelThenClose: calls of a stateless server on connections
// of their own all carry id 9 (a platform with a new client per call). Its
// notifications/cancelled, on a connection of its own too, could mean any
// of them; the call whose client closes its stream right after (AgentArea's
// order) or right before (a go-sdk client's) is the one it named.
func TestAmbiguousCancelThenClose(t *testing.T) {
	h := startTap(t, Config{Upstream: heldUpstream(t).URL})

	cancel := func(reason string) {
		body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"` + reason + `"}}`
		if status, _, _ := post(t, h.url, []byte(body), nil); status != http.StatusAccepted {
			t.Fatalf("notification answered %d", status)
		}
	}
	first := h.openHeldCall(t, "first")
	second := h.openHeldCall(t, "second")
	cancel("MCP tool call timed out: no result within 5 s") // then the stream closes, as AgentArea does
	second.Close()
	// The tap learns of a close when it has parsed the stream, not in wire
	// order: two closes within cancelGrace of one notification could be
	// claimed in either order (said in docs/commands/tap.md), so the second call is
	// settled before the third opens.
	h.waitCall("second")
	third := h.openHeldCall(t, "third")
	third.Close() // the stream closes first, as a go-sdk client does
	cancel("context canceled")

	want := map[string]string{"second": "MCP tool call timed out: no result within 5 s", "third": "context canceled"}
	for tool, reason := range want {
		if c := h.waitCall(tool); c.LastAttempt().Cancelled != reason {
			t.Errorf("%s: cancelled %q, want %q", tool, c.LastAttempt().Cancelled, reason)
		}
	}
	first.Close()
	h.waitCall("first")
	h.shutdown()
	s := h.store.Snapshot()
	for _, e := range s.Other {
		if e.EventType == "mcp.notifications/cancelled" {
			t.Errorf("a notification left unattached: %s", e.Data)
		}
	}
	for _, c := range s.Calls {
		if c.Tool == "first" && c.LastAttempt().Cancelled != "client disconnected" {
			t.Errorf("first: cancelled %q\n%s", c.LastAttempt().Cancelled, dump(s))
		}
	}
}
