package tap

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// TestSoatKeysAsSent: SOAT keys are shown exactly as their header names
// arrived, over one keep-alive connection carrying Content-Length and
// chunked bodies, and two spellings HTTP folds into one field still warn.
func TestSoatKeysAsSent(t *testing.T) {
	up := idEchoUpstream(t)
	h := startTap(t, Config{Upstream: up.URL})
	conn, err := net.Dial("tcp", h.tap.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(conn)
	send := func(id int, headers string, chunked bool) {
		body := string(callBody(t, id, "get_order", map[string]any{}, map[string]any{
			"agentarea/task_id": "task-soat", "agentarea/tool_call_id": fmt.Sprintf("c%d", id)}))
		head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" + headers
		if chunked {
			half := len(body) / 2
			fmt.Fprintf(conn, "%sTransfer-Encoding: chunked\r\n\r\n%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nX-Trailer: t\r\n\r\n", head, half, body[:half], len(body)-half, body[half:])
		} else {
			fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body)
		}
		res, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("call %d: %v", id, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	send(1, "X-Soat-Context-tenantExternalId: acme\r\nX-Soat-Context-userId: u1\r\nX-Soat-Context-UserId: u2\r\nx-soat-context-session_id: s1\r\n", false)
	send(2, "X-Soat-Context-tenant.external.id: t2\r\n", true)
	send(3, "X-SOAT-CONTEXT-TenantId: t3\r\n", false)
	h.shutdown()
	s := h.store.Snapshot()
	want := map[string]map[string]string{
		"c1": {"tenantExternalId": "acme", "userId": "u1", "session_id": "s1"},
		"c2": {"tenant.external.id": "t2"},
		"c3": {"TenantId": "t3"},
	}
	for id, bag := range want {
		var c *model.Call
		for _, x := range s.Calls {
			if x.ToolCallID == id {
				c = x
			}
		}
		if c == nil {
			t.Fatalf("no call %s:\n%s", id, dump(s))
		}
		if fmt.Sprint(c.SoatContext) != fmt.Sprint(bag) {
			t.Errorf("call %s: SOAT bag %v, want %v", id, c.SoatContext, bag)
		}
		dup := false
		for _, w := range c.Warnings {
			dup = dup || w.Code == "duplicate_context_key" && strings.Contains(w.Message, "UserId")
		}
		if dup != (id == "c1") {
			t.Errorf("call %s: duplicate_context_key warning %v", id, dup)
		}
	}
}

// TestHeadConnFraming: the framing follows requests however the bytes are
// split across reads.
func TestHeadConnFraming(t *testing.T) {
	body := `{"a":1}`
	stream := "\r\nPOST /mcp HTTP/1.1\r\nHost: x\r\nX-Soat-Context-aB: 1\r\nContent-Length: 7\r\n\r\n" + body +
		"POST /mcp?q=1 HTTP/1.1\nX-Soat-Context-cD: 2\nTransfer-Encoding: chunked\n\n3;x=y\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nTrailer-X: z\r\n\r\n" +
		"GET /sse HTTP/1.1\r\nX-Soat-Context-eF: 3\r\n\r\n"
	for size := 1; size <= 19; size++ {
		c := &headConn{}
		for i := 0; i < len(stream); i += size {
			c.feed([]byte(stream[i:min(i+size, len(stream))]))
		}
		var got []string
		for _, h := range c.heads {
			for _, f := range h.fields {
				if strings.HasPrefix(f.name, "X-Soat") {
					got = append(got, h.method+" "+h.target+" "+f.name+"="+f.value)
				}
			}
		}
		want := "[POST /mcp X-Soat-Context-aB=1 POST /mcp?q=1 X-Soat-Context-cD=2 GET /sse X-Soat-Context-eF=3]"
		if fmt.Sprint(got) != want || c.state != rawHeadState {
			t.Fatalf("reads of %d bytes: heads %v state %d", size, got, c.state)
		}
	}
}

// FuzzHeadConn: whatever a client sends, in whatever reads, the framing
// never panics and keeps its bounds.
func FuzzHeadConn(f *testing.F) {
	f.Add([]byte("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n"), uint8(3))
	f.Add([]byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		c := &headConn{}
		step := int(split%32) + 1
		for i := 0; i < len(data); i += step {
			c.feed(data[i:min(i+step, len(data))])
		}
		if len(c.heads) > maxRawHeads || len(c.buf) > maxRawHead+step {
			t.Fatalf("heads %d buf %d", len(c.heads), len(c.buf))
		}
	})
}

// BenchmarkHeadConnFeed is the framing's cost for one typical tools/call
// (a head of ~10 fields and a small body) read in one piece.
func BenchmarkHeadConnFeed(b *testing.B) {
	body := strings.Repeat("x", 400)
	req := []byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:7070\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 400\r\n" +
		"Accept: application/json, text/event-stream\r\nAuthorization: Bearer abc\r\nContent-Type: application/json\r\n" +
		"Mcp-Protocol-Version: 2025-11-25\r\nX-Agentarea-Context: " + strings.Repeat("t", 600) + "\r\nX-Soat-Context-userId: u1\r\n" +
		"Accept-Encoding: gzip\r\n\r\n" + body)
	c := &headConn{}
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		c.feed(req)
		c.heads = c.heads[:0]
	}
}

// TestSoatKeysAfterServerAnswer: a request net/http answers without the
// handler (OPTIONS *) does not put the next request's names out of step.
func TestSoatKeysAfterServerAnswer(t *testing.T) {
	h := startTap(t, Config{Upstream: idEchoUpstream(t).URL})
	conn, rd := dialRaw(t, h)
	exchangeRaw(t, conn, rd, "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	exchangeRaw(t, conn, rd, soatCallRequest(t, "X-Soat-Context-tenantId: acme\r\n"))
	wantSoatBag(t, h, "map[tenantId:acme]")
}

// TestSoatKeysCustomPrefix: a connection keeps the fields under the prefix
// of the tap it serves, so a configured prefix keeps its keys as sent too.
func TestSoatKeysCustomPrefix(t *testing.T) {
	h := startTap(t, Config{Upstream: idEchoUpstream(t).URL, SoatPrefix: "X-Tenant-Ctx-"})
	conn, rd := dialRaw(t, h)
	exchangeRaw(t, conn, rd, soatCallRequest(t, "X-Soat-Context-other: no\r\nX-Tenant-Ctx-tenantId: acme\r\nx-tenant-ctx-userId: u1\r\n"))
	wantSoatBag(t, h, "map[tenantId:acme userId:u1]")
}

// dialRaw opens a connection to the tap for hand-written requests.
func dialRaw(t *testing.T, h *harness) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", h.tap.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// exchangeRaw sends one request as written and reads its answer whole.
func exchangeRaw(t *testing.T, conn net.Conn, rd *bufio.Reader, req string) {
	t.Helper()
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// soatCallRequest is a tools/call with these extra header lines.
func soatCallRequest(t *testing.T, headers string) string {
	body := string(callBody(t, 1, "get_order", map[string]any{}, map[string]any{"agentarea/task_id": "t", "agentarea/tool_call_id": "c"}))
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", headers, len(body), body)
}

// wantSoatBag stops the tap and checks its one call's SOAT bag.
func wantSoatBag(t *testing.T, h *harness, want string) {
	t.Helper()
	h.shutdown()
	calls := h.store.Snapshot().Calls
	if len(calls) == 0 {
		t.Fatal("no call")
	}
	if got := fmt.Sprint(calls[0].SoatContext); got != want {
		t.Fatalf("SOAT bag %s, want %s", got, want)
	}
}
