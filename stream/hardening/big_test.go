package hardening_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/decoder/token"
	"toolscope/model"
	"toolscope/output"
	"toolscope/ui"
)

// bigSize is the size of the large bodies: 100 MB, 16 MB with -short.
func bigSize() int64 {
	if testing.Short() {
		return 16 << 20
	}
	return 100 << 20
}

// filler reads n bytes of 'x'.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), f.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return int(k), nil
}

// bigBody is a JSON document of exactly size bytes: prefix, 'x's, suffix.
func bigBody(prefix, suffix string, size int64) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), &filler{size - int64(len(prefix)+len(suffix))}, strings.NewReader(suffix))
}

func digest(r io.Reader) (string, int64) {
	h := sha256.New()
	n, _ := io.Copy(h, r)
	return fmt.Sprintf("%x", h.Sum(nil)), n
}

// bigUpstream hashes every request body it gets and answers a tools/call
// named "big" with a result of size bytes.
type bigUpstream struct {
	size int64
	mu   sync.Mutex
	got  map[string]string // X-Case -> digest of the body received
}

const (
	bigResultPrefix = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`
	bigResultSuffix = `"}]}}`
)

func (u *bigUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var h hash.Hash = sha256.New()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r.Body, head)
	h.Write(head[:n])
	io.Copy(h, r.Body)
	u.mu.Lock()
	u.got[r.Header.Get("X-Case")] = fmt.Sprintf("%x", h.Sum(nil))
	u.mu.Unlock()
	if bytes.Contains(head[:n], []byte(`"name":"big"`)) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.FormatInt(u.size, 10))
		io.Copy(w, bigBody(bigResultPrefix, bigResultSuffix, u.size))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"stored"}]}}`)
}

// TestHundredMegabyteBodies: a 100 MB result and a 100 MB request go
// through the tap byte for byte, streamed: the heap grows by far less than
// the body, the tap warns that it did not parse them, and the call it could
// read is recorded.
func TestHundredMegabyteBodies(t *testing.T) {
	size := bigSize()
	store := model.NewStore(model.Options{})
	up := &bigUpstream{size: size, got: map[string]string{}}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tp := startTap(t, "big-tap", upSrv.URL, output.NewHub(store))
	url := "http://" + tp.Addr()
	client := newClient()
	defer client.CloseIdleConnections()
	base := heapInuse()
	heap := sampleHeap(5 * time.Millisecond)

	// A 100 MB result.
	start := time.Now()
	spec := callSpec{Task: testTask, ToolCallID: "big-result", Tool: "big", ID: 1, Token: true}
	res, err := client.Do(spec.request(t, t.Context(), url))
	if err != nil {
		t.Fatal(err)
	}
	gotDigest, n := digest(res.Body)
	res.Body.Close()
	want, _ := digest(bigBody(bigResultPrefix, bigResultSuffix, size))
	if n != size || gotDigest != want {
		t.Errorf("result: the client got %d bytes (digest %s), want %d (%s)", n, gotDigest[:12], size, want[:12])
	}
	resultTook := time.Since(start)

	// A 100 MB request.
	start = time.Now()
	prefix := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"upload","_meta":{"agentarea/task_id":"` + testTask + `","agentarea/tool_call_id":"big-request"},"arguments":{"blob":"`
	suffix := `"}}}`
	req, _ := http.NewRequestWithContext(t.Context(), "POST", url, bigBody(prefix, suffix, size))
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Case", "big-request")
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	requestTook := time.Since(start)
	want, _ = digest(bigBody(prefix, suffix, size))
	up.mu.Lock()
	got := up.got["big-request"]
	up.mu.Unlock()
	if res.StatusCode != 200 || got != want {
		t.Errorf("request: HTTP %d, the upstream got digest %.12s, want %.12s", res.StatusCode, got, want)
	}
	peak := heap.finish()
	shutdownTap(t, tp, client)

	grew := peak - min(peak, base)
	t.Logf("%d MB result through the tap in %v, %d MB request in %v; peak HeapInuse %.1f MiB (+%.1f MiB over %.1f MiB)",
		size>>20, resultTook.Round(time.Millisecond), size>>20, requestTook.Round(time.Millisecond), mib(peak), mib(grew), mib(base))
	if grew > 64<<20 {
		t.Errorf("the heap grew by %.1f MiB for %d MB bodies: not streamed", mib(grew), size>>20)
	}
	snap := store.Snapshot()
	if codes := warningCodes(snap); codes["parse_skipped"] < 2 {
		t.Errorf("warnings: %v (want parse_skipped for both bodies)", codes)
	}
	if c := findCall(snap, "big-result"); c == nil || c.Status != model.StatusOK || c.LastAttempt().Result.HTTPStatus != 200 {
		t.Errorf("the big-result call: %s", describe(c))
	}
}

// jwtWithHeader signs a context token whose JWT header carries pad bytes
// more than a real one.
func jwtWithHeader(t *testing.T, spec callSpec, pad int) string {
	t.Helper()
	header, _ := json.Marshal(map[string]any{"alg": "HS256", "typ": "JWT", "kid": strings.Repeat("k", pad)})
	real := spec.token(t)
	claims := strings.Split(real, ".")[1]
	signing := base64.RawURLEncoding.EncodeToString(header) + "." + claims
	mac := hmac.New(sha256.New, testSecret)
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// TestHugeJWTHeader: a context token whose JWT header is 1 MiB. Over HTTP
// it passes net/http's 1 MB header limit, so the tap's server answers 431
// before anything is forwarded, and the tap goes on. Decoded directly, and
// at 512 KiB through the tap, it is verified without a crash, quickly, and
// the detail view shows it bounded and inert.
func TestHugeJWTHeader(t *testing.T) {
	spec := callSpec{Task: testTask, ToolCallID: "jwt-1m", Tool: "work", ID: 1}
	huge := jwtWithHeader(t, spec, 1<<20)
	start := time.Now()
	ctx, _ := token.Verify(token.Input{Token: huge, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID,
		ToolName: spec.Tool, Meta: spec.meta(), Now: time.Now()})
	t.Logf("1 MiB JWT header verified directly in %v: verdict %s %q", time.Since(start).Round(time.Microsecond), ctx.Verdict, ctx.Reason)
	if time.Since(start) > 2*time.Second || ctx.Verdict == "" {
		t.Errorf("verdict %q in %v", ctx.Verdict, time.Since(start))
	}

	store := model.NewStore(model.Options{})
	up := &upstream{Progress: 2}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tp := startTap(t, "jwt-tap", upSrv.URL, output.NewHub(store))
	url := "http://" + tp.Addr()
	client := newClient()
	defer client.CloseIdleConnections()

	req := spec.request(t, t.Context(), url)
	req.Header.Set("X-AgentArea-Context", huge)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || up.peak.Load() != 0 || up.wrote("jwt-1m") != nil {
		t.Errorf("1 MiB header: HTTP %d, forwarded %v", res.StatusCode, up.wrote("jwt-1m") != nil)
	}

	half := callSpec{Task: testTask, ToolCallID: "jwt-512k", Tool: "work", ID: 2}
	req = half.request(t, t.Context(), url)
	req.Header.Set("X-AgentArea-Context", jwtWithHeader(t, half, 512<<10))
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(body, up.wrote("jwt-512k")) {
		t.Errorf("512 KiB header: HTTP %d, body unchanged %v", res.StatusCode, bytes.Equal(body, up.wrote("jwt-512k")))
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()
	c := findCall(snap, "jwt-512k")
	if c == nil || c.Status != model.StatusOK || c.Context == nil || !c.Context.Present {
		t.Fatalf("512 KiB header call: %s", describe(c))
	}
	if findCall(snap, "jwt-1m") != nil {
		t.Error("a call the tap's server refused was recorded")
	}
	start = time.Now()
	v := render(store, ui.Options{OpenCall: c.ID}, nil)
	took := time.Since(start)
	t.Logf("512 KiB header call: verdict %s %q; detail built in %v, %d bytes", c.Context.Verdict, c.Context.Reason, took.Round(time.Millisecond), len(v))
	if p := inertProblem(v); p != "" {
		t.Error(p)
	}
	if took > 3*time.Second {
		t.Errorf("the detail took %v", took)
	}
	line := output.EncodeLine(&c.Timeline()[0])
	if strings.Contains(string(line), strings.Split(jwtWithHeader(t, half, 512<<10), ".")[2]) {
		t.Errorf("the recorded tool.call: the signature is in it")
	}
}

// TestHundredMegabyteStream: a 100 MB event stream (progress notifications
// of 64 KiB messages, then the result) goes through the tap byte for byte;
// every notification is counted, the result recorded, and the heap stays
// far below the stream's size.
func TestHundredMegabyteStream(t *testing.T) {
	size := bigSize()
	if raceDetector {
		size = min(size, 16<<20) // the side parser's JSON work is what -race slows most
	}
	const msgBytes = 64 << 10
	events := int(size / (msgBytes + 200))
	pad := strings.Repeat("m", msgBytes)
	up := &upstream{}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		h := sha256.New()
		out := io.MultiWriter(w, h)
		for p := 1; p <= events; p++ {
			io.WriteString(out, progressFrame(c, p, events, pad))
		}
		io.WriteString(out, resultFrame(c, "streamed"))
		up.written.Store(c.ToolCallID, []byte(fmt.Sprintf("%x", h.Sum(nil))))
		return true
	}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	store := model.NewStore(model.Options{})
	tp := startTap(t, "stream-tap", upSrv.URL, output.NewHub(store))
	client := newClient()
	base := heapInuse()
	heap := sampleHeap(5 * time.Millisecond)
	start := time.Now()
	spec := callSpec{Task: testTask, ToolCallID: "big-stream", Tool: "stream", ID: 1, Token: true}
	res, err := client.Do(spec.request(t, t.Context(), "http://"+tp.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	got, n := digest(res.Body)
	res.Body.Close()
	took := time.Since(start)
	peak := heap.finish()
	shutdownTap(t, tp, client)
	if want := string(up.wrote("big-stream")); got != want {
		t.Errorf("the client got %d bytes with digest %.12s, the upstream wrote %.12s", n, got, want)
	}
	snap := store.Snapshot()
	c := findCall(snap, "big-stream")
	if c == nil {
		t.Fatal("the streamed call is not recorded")
	}
	codes := warningCodes(snap)
	grew := peak - min(peak, base)
	t.Logf("%d MB event stream (%d notifications of 64 KiB) through the tap in %v; peak HeapInuse +%.1f MiB; %d notifications counted, status %s, warnings %v",
		n>>20, events, took.Round(time.Millisecond), mib(grew), c.Progress.Sent, c.Status, codes)
	if grew > 96<<20 {
		t.Errorf("the heap grew by %.1f MiB for a %d MB stream", mib(grew), n>>20)
	}
	// The tap may drop bytes from its side copy rather than hold the client
	// back, but then it must say so.
	if c.Progress.Sent != events && codes["parse_lagging"] == 0 {
		t.Errorf("%d of %d notifications counted and no parse_lagging warning", c.Progress.Sent, events)
	}
	// The detail of a call whose notifications carry 64 KiB messages.
	start = time.Now()
	v := render(store, ui.Options{OpenCall: c.ID}, nil)
	t.Logf("its detail: built in %v, %d lines, %d bytes", time.Since(start).Round(time.Millisecond), strings.Count(v, "\n"), len(v))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the detail took %v", d)
	}
	t.Run("the result is recorded", func(t *testing.T) {
		if c.Status != model.StatusOK {
			t.Errorf("the streamed call: %s", describe(c))
		}
	})
}
