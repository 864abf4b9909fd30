package tap

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"toolscope/model"
)

// TestQuickOpenCallTimesOut: an exchange over at once (an event stream that
// ends before the result inside an MCP session, so the call stays open for
// a resumed stream) has
// its side work done on the handler's goroutine, which arms the call's
// timeout only then: past it the call still gets its call_timeout warning.
func TestQuickOpenCallTimesOut(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":3,\"progress\":1}}\n\n")
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, Timeout: time.Second})
	req, err := http.NewRequest("POST", h.url, bytes.NewReader(callBody(t, 3, "resumable", map[string]any{}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", "s-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	s := h.waitFor("call_timeout on the open call", func(s *model.Snapshot) bool {
		return len(s.Calls) == 1 && !s.Calls[0].Finished() && hasWarning(s, string(model.WarnCallTimeout))
	})
	// A plain MCP call: no platform to give up on it.
	for _, w := range s.Calls[0].Warnings {
		if w.Code == string(model.WarnCallTimeout) && w.Message != "no result within 1s (--timeout)" {
			t.Errorf("call_timeout says %q", w.Message)
		}
	}
}
