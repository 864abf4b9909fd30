package tap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

const progressEvent = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":%d,\"total\":10}}\n\n"

// TestUpstreamDiesMidStream: the server's connection drops after one
// progress event; the client sees the stream break and the call an error.
func TestUpstreamDiesMidStream(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, progressEvent, 1, 1)
		http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // mid-chunk: no terminating chunk ever comes
		}
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	req, _ := http.NewRequest("POST", h.url, bytes.NewReader(callBody(t, 1, "dies", map[string]any{}, map[string]any{"progressToken": 1})))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Errorf("the client saw a clean end of a stream the upstream broke: %q", body)
	}
	if !strings.Contains(string(body), `"progress":1`) {
		t.Errorf("the event sent before the break did not reach the client: %q", body)
	}
	c := h.waitCall("dies")
	r := c.LastAttempt().Result
	if c.Status != model.StatusError || !strings.Contains(r.Error, "upstream stream broke") || c.Progress.Sent != 1 {
		t.Errorf("status %s error %q sent %d", c.Status, r.Error, c.Progress.Sent)
	}
}

// TestClientLeavesMidStream: the client drops the connection; the upstream
// request is cancelled and the call shows tool.cancelled.
func TestClientLeavesMidStream(t *testing.T) {
	upstreamGone := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, progressEvent, 5, 1)
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			close(upstreamGone)
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", h.url, bytes.NewReader(callBody(t, 5, "leaves", map[string]any{}, map[string]any{"progressToken": 5})))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(res.Body).ReadString('\n')
	if !strings.HasPrefix(line, "event: message") {
		t.Fatalf("first line %q", line)
	}
	cancel()
	res.Body.Close()
	select {
	case <-upstreamGone:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled when the client left")
	}
	c := h.waitCall("leaves")
	if c.Status != model.StatusCancelled || c.LastAttempt().Cancelled != "client disconnected" {
		t.Errorf("status %s cancelled %q\n%s", c.Status, c.LastAttempt().Cancelled, dump(h.store.Snapshot()))
	}
}

// TestNotificationsCancelled: a notifications/cancelled from a session-less
// client on a connection of its own names a call only when one call in flight
// holds that id. Two such calls on other connections are ambiguous: neither
// is cancelled (a guess could cancel the wrong one) and the notification says
// so. Once one of them has ended, the other is cancelled with the reason.
func TestNotificationsCancelled(t *testing.T) {
	h := startTap(t, Config{Upstream: heldUpstream(t).URL})

	// Two calls share JSON-RPC id 9 (two connections).
	bodies := map[string]io.Closer{}
	for _, tool := range []string{"first", "second"} {
		bodies[tool] = h.openHeldCall(t, tool)
	}
	cancel := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"MCP tool call timed out"}}`)
	if status, _, _ := post(t, h.url, cancel, nil); status != http.StatusAccepted {
		t.Fatalf("notification answered %d", status)
	}
	h.waitFor("the ambiguous notification", func(s *model.Snapshot) bool {
		for _, e := range s.Other {
			if e.EventType == "mcp.notifications/cancelled" && strings.Contains(string(e.Data), `"ambiguous":2`) {
				return true
			}
		}
		return false
	})
	for _, o := range h.store.Snapshot().Calls {
		if o.Finished() {
			t.Errorf("%s was cancelled by an ambiguous notification", o.Tool)
		}
	}

	bodies["first"].Close() // first's client leaves: second is the one call left with id 9
	first := h.waitCall("first")
	if first.LastAttempt().Cancelled != "client disconnected" {
		t.Errorf("first: cancelled %q", first.LastAttempt().Cancelled)
	}
	post(t, h.url, cancel, nil)
	c := h.waitCall("second")
	if c.Status != model.StatusCancelled || c.LastAttempt().Cancelled != "MCP tool call timed out" {
		t.Errorf("second: status %s cancelled %q", c.Status, c.LastAttempt().Cancelled)
	}
}

func TestUnreachableUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	h := startTap(t, Config{Upstream: dead})

	status, hdr, body := post(t, h.url, callBody(t, "req-77", "nowhere", map[string]any{}, nil), nil)
	if status != http.StatusBadGateway || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d content type %q", status, hdr.Get("Content-Type"))
	}
	var rpc struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil || rpc.ID != "req-77" || rpc.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(rpc.Error.Message, "unreachable") {
		t.Fatalf("502 body %s (%v)", body, err)
	}
	c := h.waitCall("nowhere")
	if r := c.LastAttempt().Result; r.HTTPStatus != 502 || r.Error == "" || c.Status != model.StatusError {
		t.Errorf("result %+v status %s", r, c.Status)
	}
}

// TestStatusPassThrough: 401, 403 and 5xx reach the client unchanged and
// the call records them, with the JSON-RPC error when the body holds one.
func TestStatusPassThrough(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/401":
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			w.Write(jsonrpc.ErrorResponse(json.RawMessage(`1`), jsonrpc.CodeUnauthorized, "bad token"))
		case "/403":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			w.Write(jsonrpc.ErrorResponse(json.RawMessage(`1`), jsonrpc.CodeForbidden, "tool mismatch"))
		case "/500":
			w.WriteHeader(500)
			w.Write([]byte("internal trouble\nstack..."))
		case "/503":
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(503)
		}
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	for _, tc := range []struct {
		status  int
		rpcCode int
		errText string
	}{
		{401, jsonrpc.CodeUnauthorized, "bad token"},
		{403, jsonrpc.CodeForbidden, "tool mismatch"},
		{500, 0, "HTTP 500 Internal Server Error: internal trouble"},
		{503, 0, "HTTP 503 Service Unavailable"},
	} {
		tool := fmt.Sprintf("tool%d", tc.status)
		directStatus, directHdr, directBody := post(t, fmt.Sprintf("%s/%d", upstream.URL, tc.status), callBody(t, 1, tool, map[string]any{}, nil), nil)
		status, hdr, body := post(t, fmt.Sprintf("%s/%d", h.url, tc.status), callBody(t, 1, tool, map[string]any{}, nil), nil)
		if status != directStatus || !bytes.Equal(body, directBody) || hdr.Get("WWW-Authenticate") != directHdr.Get("WWW-Authenticate") || hdr.Get("Retry-After") != directHdr.Get("Retry-After") {
			t.Errorf("%d: through the tap %d %q %v, direct %d %q %v", tc.status, status, body, hdr, directStatus, directBody, directHdr)
		}
		c := h.waitCall(tool)
		r := c.LastAttempt().Result
		if r.HTTPStatus != tc.status || r.RPCCode != tc.rpcCode || r.Error != tc.errText || c.Status != model.StatusError {
			t.Errorf("%d: recorded http %d rpc %d error %q status %s", tc.status, r.HTTPStatus, r.RPCCode, r.Error, c.Status)
		}
		if (tc.status == 401 || tc.status == 403) && c.Flags&model.FlagRejected == 0 {
			t.Errorf("%d: call not flagged rejected", tc.status)
		}
	}
}

// TestCallTimeout: past the timeout the call gets a call_timeout warning,
// and its result, when it comes, is late.
func TestCallTimeout(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(1300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"finally"}]}}`))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, Timeout: time.Second})
	body := callBody(t, 3, "sluggish", map[string]any{}, nil)
	go func() {
		if res, err := http.Post(h.url, "application/json", bytes.NewReader(body)); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	h.waitFor("call_timeout", func(s *model.Snapshot) bool {
		for _, c := range s.Calls {
			return !c.Finished() && hasWarning(s, "call_timeout")
		}
		return false
	})
	c := h.waitCall("sluggish")
	if r := c.LastAttempt().Result; !r.Late || c.Status != model.StatusLate || r.TextChars != len("finally") {
		t.Errorf("result %+v status %s", r, c.Status)
	}
	if c.TimeoutMS != 1000 {
		t.Errorf("timeout_ms %d", c.TimeoutMS)
	}
}

// TestUnreadableStreamedResult: the server answers on its event stream with
// a message the tap cannot read, then closes the stream. No resumed stream
// will bring another answer: the call ends in an error that says why.
func TestUnreadableStreamedResult(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, progressEvent, 1, 1)
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[}\n\n")
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})
	_, _, body := post(t, h.url, callBody(t, 1, "unreadable", map[string]any{}, map[string]any{"progressToken": 1}), nil)
	if !strings.Contains(string(body), `"content":[}`) {
		t.Fatalf("the client did not get the server's answer: %q", body)
	}
	c := h.waitCall("unreadable")
	r := c.LastAttempt().Result
	if c.Status != model.StatusError || r.HTTPStatus != 200 || !strings.Contains(r.Error, "without a readable result") || c.Progress.Sent != 1 {
		t.Errorf("status %s http %d error %q sent %d", c.Status, r.HTTPStatus, r.Error, c.Progress.Sent)
	}
	if !hasWarning(h.store.Snapshot(), "malformed_response") {
		t.Error("no malformed_response warning")
	}
}
