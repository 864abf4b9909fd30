package tap

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// randomBytes is a deterministic pseudo-random body.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

// echoUpstream answers with a body chosen by the request's X-Resp-* headers
// and tells, in X-Req-Sha256, the hash of the request body it received.
func echoUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.New()
		io.Copy(sum, r.Body)
		size, _ := strconv.Atoi(r.Header.Get("X-Resp-Size"))
		seed, _ := strconv.ParseUint(r.Header.Get("X-Resp-Seed"), 10, 64)
		w.Header().Set("X-Req-Sha256", hex.EncodeToString(sum.Sum(nil)))
		w.Header().Set("Content-Type", r.Header.Get("X-Resp-Type"))
		if r.Header.Get("X-Resp-Chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(size))
		}
		body := randomBytes(seed, size)
		for len(body) > 0 { // several writes, so chunked bodies arrive in pieces
			n := min(len(body), 1+int(seed%50000))
			w.Write(body[:n])
			body = body[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBodiesByteForByte(t *testing.T) {
	upstream := echoUpstream(t)
	h := startTap(t, Config{Upstream: upstream.URL, MaxParseBytes: 64 << 10})
	sizes := []int{0, 1, 2, 17, 1000, 4095, 4096, 4097, 32 << 10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200_003, 1<<20 + 7}
	types := []string{"application/json", "text/event-stream", "application/octet-stream"}
	for i, size := range sizes {
		for j, ct := range types {
			seed := uint64(i*len(types) + j + 1)
			reqBody := randomBytes(seed+1000, sizes[(i+j)%len(sizes)])
			chunked := (i+j)%2 == 0
			t.Run(fmt.Sprintf("%d-%s-chunked=%v", size, ct, chunked), func(t *testing.T) {
				req, _ := http.NewRequest("POST", h.url+"/mcp", bytes.NewReader(reqBody))
				if chunked {
					req.ContentLength = -1 // sent chunked
					req.Header.Set("X-Resp-Chunked", "1")
				}
				req.Header.Set("X-Resp-Size", strconv.Itoa(size))
				req.Header.Set("X-Resp-Seed", strconv.FormatUint(seed, 10))
				req.Header.Set("X-Resp-Type", ct)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				want := randomBytes(seed, size)
				if !bytes.Equal(got, want) {
					t.Fatalf("response body differs: got %d bytes, want %d", len(got), len(want))
				}
				reqSum := sha256.Sum256(reqBody)
				if res.Header.Get("X-Req-Sha256") != hex.EncodeToString(reqSum[:]) {
					t.Fatalf("upstream received a different request body (%d bytes sent)", len(reqBody))
				}
			})
		}
	}
}

// TestLargeResponseStreamsThrough sends 50 MB through the tap, hashed on the
// fly: nothing is held whole, and the bytes are the upstream's.
func TestLargeResponseStreamsThrough(t *testing.T) {
	const size = 50 << 20
	upstream := echoUpstream(t)
	h := startTap(t, Config{Upstream: upstream.URL})
	for _, chunked := range []bool{false, true} {
		req, _ := http.NewRequest("POST", h.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"big"}}`))
		req.Header.Set("X-Resp-Size", strconv.Itoa(size))
		req.Header.Set("X-Resp-Seed", "42")
		req.Header.Set("X-Resp-Type", "application/json")
		if chunked {
			req.Header.Set("X-Resp-Chunked", "1")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.New()
		n, err := io.Copy(sum, res.Body)
		res.Body.Close()
		want := sha256.Sum256(randomBytes(42, size))
		if err != nil || n != size || !bytes.Equal(sum.Sum(nil), want[:]) {
			t.Fatalf("chunked=%v: got %d bytes (err %v), hash match %v", chunked, n, err, bytes.Equal(sum.Sum(nil), want[:]))
		}
	}
	h.shutdown()
	if s := h.store.Snapshot(); !hasWarning(s, "parse_skipped") {
		t.Errorf("no parse_skipped warning for a body over the parse limit\n%s", dump(s))
	}
}

func TestHeadersPassThrough(t *testing.T) {
	var mu sync.Mutex
	var seen http.Header
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		w.Header()["Date"] = nil // no Date, no Content-Type: the tap must not invent them
		w.Header()["Content-Type"] = nil
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.Header().Add("Set-Cookie", "sid=1; HttpOnly")
		w.Header().Set("Mcp-Session-Id", "session-9")
		w.WriteHeader(200)
		w.Write([]byte("<not json>"))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	req, _ := http.NewRequest("POST", h.url, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	req.Header.Set("Authorization", "Bearer abc.def")
	req.Header.Add("X-Custom", "one")
	req.Header.Add("X-Custom", "two")
	req.Header.Set("X-Forwarded-For", "10.1.2.3")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "must not pass")
	req.Header.Set("User-Agent", "agent/1.0")
	// A client that does not ask for gzip: the tap must not ask in its name.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	for k, want := range map[string]string{"Authorization": "Bearer abc.def", "X-Custom": "one,two", "X-Forwarded-For": "10.1.2.3", "User-Agent": "agent/1.0"} {
		if got := strings.Join(seen[k], ","); got != want {
			t.Errorf("upstream saw %s=%q, want %q", k, got, want)
		}
	}
	for _, k := range []string{"X-Hop", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded"} {
		if v, ok := seen[k]; ok {
			t.Errorf("upstream saw %s=%q, which the client did not send end to end", k, v)
		}
	}
	if seen.Get("Accept-Encoding") != "" {
		t.Errorf("the proxy added Accept-Encoding: %q", seen.Get("Accept-Encoding"))
	}
	if string(body) != "<not json>" || strings.Join(res.Header["X-Multi"], ",") != "a,b" ||
		res.Header.Get("Set-Cookie") != "sid=1; HttpOnly" || res.Header.Get("Mcp-Session-Id") != "session-9" {
		t.Errorf("response changed: body %q headers %v", body, res.Header)
	}
	if _, ok := res.Header["Date"]; ok {
		t.Errorf("the tap added a Date header")
	}
	if _, ok := res.Header["Content-Type"]; ok {
		t.Errorf("the tap added a Content-Type: %q", res.Header.Get("Content-Type"))
	}
}

// TestSSEEventsArriveOneByOne: the upstream writes the next event only once
// the client has read the previous one, so any buffering in the tap stalls
// the stream and fails the test.
func TestSSEEventsArriveOneByOne(t *testing.T) {
	const events = 20
	ack := make(chan int)
	failed := make(chan string, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		rc := http.NewResponseController(w)
		for i := 1; i <= events; i++ {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":%d,\"total\":%d}}\n\n", i, events)
			rc.Flush()
			select {
			case got := <-ack:
				if got != i {
					failed <- fmt.Sprintf("client acknowledged event %d after event %d was written", got, i)
					return
				}
			case <-time.After(3 * time.Second):
				failed <- fmt.Sprintf("event %d did not reach the client within 3 s of being written", i)
				return
			}
		}
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n")
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	// AgentArea's _meta: the 0.5 s rule applies to its progress.
	req, _ := http.NewRequest("POST", h.url, bytes.NewReader(callBody(t, 7, "slow", map[string]any{}, contractMeta("task-7", "call-7", 7))))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	n := 0
	for n < events {
		line, err := br.ReadString('\n')
		if err != nil {
			select {
			case msg := <-failed:
				t.Fatal(msg)
			default:
			}
			t.Fatalf("stream ended after %d events: %v", n, err)
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, "notifications/progress") {
			n++
			ack <- n
		}
	}
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), `"text":"done"`) {
		t.Fatalf("final result missing: %q", rest)
	}
	c := h.waitCall("slow")
	if c.Progress.Sent != events || c.Status != "ok" || !c.Relays || c.RelayedCount() < 1 || c.RelayedCount() > 2 {
		t.Errorf("sent %d (want %d), would relay %d (want 1..2 under the 0.5 s rule: the first and the completion), status %s",
			c.Progress.Sent, events, c.RelayedCount(), c.Status)
	}
}

// lateEOFTransport delays the transport's read that follows the request
// body's last byte, as a busy machine may: by then the upstream has the
// whole body and may have answered.
type lateEOFTransport struct{ http.RoundTripper }

func (t lateEOFTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.ContentLength > 0 {
		r.Body = &lateEOFBody{ReadCloser: r.Body, left: r.ContentLength}
	}
	return t.RoundTripper.RoundTrip(r)
}

type lateEOFBody struct {
	io.ReadCloser
	left int64
}

func (b *lateEOFBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	n, err := b.ReadCloser.Read(p[:min(int64(len(p)), max(b.left, 1))])
	b.left -= int64(n)
	return n, err
}

// TestRequestOverParseLimitWithLateEOF: a request body over the parse limit
// is forwarded as the bytes the tap read, then the rest of the client's
// body. Writing the response must not close that body under the transport
// (net/http consumes and closes an unread request body when a handler
// writes its response header, unless the handler is full duplex): the
// transport's last read would fail, and the upstream connection with the
// response on it.
func TestRequestOverParseLimitWithLateEOF(t *testing.T) {
	answer := randomBytes(30, 65535)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.New()
		io.Copy(sum, r.Body)
		w.Header().Set("X-Req-Sha256", hex.EncodeToString(sum.Sum(nil)))
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		w.Write(answer[:1000])
		http.NewResponseController(w).Flush()
		time.Sleep(100 * time.Millisecond) // the transport's late read happens meanwhile
		w.Write(answer[1000:])
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, MaxParseBytes: 64 << 10, Transport: lateEOFTransport{newTransport()}})
	for _, size := range []int{64<<10 + 1, 200_003} {
		for _, chunked := range []bool{false, true} {
			reqBody := randomBytes(uint64(size), size)
			req, _ := http.NewRequest("POST", h.url, bytes.NewReader(reqBody))
			if chunked {
				req.ContentLength = -1
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || !bytes.Equal(got, answer) {
				t.Errorf("request of %d bytes (chunked %v): response cut after %d bytes: %v", size, chunked, len(got), err)
			}
			reqSum := sha256.Sum256(reqBody)
			if res.Header.Get("X-Req-Sha256") != hex.EncodeToString(reqSum[:]) {
				t.Errorf("request of %d bytes (chunked %v): the upstream received a different body", size, chunked)
			}
		}
	}
}
