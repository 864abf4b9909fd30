package hardening_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
	"toolscope/ui"
)

// headerRecorder keeps the headers of every request an upstream got, by
// the X-Case header the test adds.
type headerRecorder struct {
	next http.Handler
	mu   sync.Mutex
	seen map[string][]http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen[r.Header.Get("X-Case")] = append(h.seen[r.Header.Get("X-Case")], r.Header.Clone())
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *headerRecorder) get(c string) []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[c]
}

// TestSoatHeaderInjection sends each header injection attempt of the corpus
// as raw bytes to the tap. A request the tap's HTTP server must refuse gets
// a 400 and reaches nobody; one it accepts reaches the upstream once, with
// the same SOAT headers the tap shows, no header the tap did not record,
// and a detail view that shows every key and value inert.
func TestSoatHeaderInjection(t *testing.T) {
	cases := loadCorpus(t, "soat_headers.txt")
	store := model.NewStore(model.Options{})
	rec := &headerRecorder{next: &upstream{Progress: 1}, seen: map[string][]http.Header{}}
	upSrv := httptest.NewServer(rec)
	defer upSrv.Close()
	tp := startTap(t, "soat-tap", upSrv.URL, output.NewHub(store))

	for i, c := range cases {
		spec := callSpec{Task: testTask, ToolCallID: fmt.Sprintf("soat-%02d", i), Tool: "work", ID: i + 1, Token: true}
		expect := c.Fields[0]
		conn, err := net.Dial("tcp", tp.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		headers := []string{"X-Case: " + c.Name, "Connection: close", "X-AgentArea-Context: " + spec.token(t), c.Text}
		if _, err := conn.Write(rawRequest(tp.Addr(), headers, spec.body())); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: no answer from the tap: %v", c.Name, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		conn.Close()
		seen := rec.get(c.Name)
		switch expect {
		case "rejected":
			if res.StatusCode != http.StatusBadRequest || len(seen) != 0 {
				t.Errorf("%s: HTTP %d and %d requests forwarded; want 400 and none", c.Name, res.StatusCode, len(seen))
			}
			continue
		case "forwarded":
			if res.StatusCode != http.StatusOK || len(seen) != 1 {
				t.Errorf("%s: HTTP %d and %d requests forwarded; want 200 and one", c.Name, res.StatusCode, len(seen))
				continue
			}
		default:
			t.Fatalf("%s: unknown expectation %q", c.Name, expect)
		}
		var call *model.Call
		modeltest.WaitFor(t, 5*time.Second, c.Name+" in the store", func() bool {
			call = findCall(store.Snapshot(), spec.ToolCallID)
			return call != nil && call.Finished()
		})
		// Upstream SOAT headers = the bag the tap shows; no unrecorded header.
		up := seen[0]
		for name, vals := range up {
			if _, ok := call.Headers()[name]; !ok {
				t.Errorf("%s: the upstream got header %q the tap did not record", c.Name, name)
			}
			if len(name) > len("X-Soat-Context-") && strings.EqualFold(name[:len("X-Soat-Context-")], "X-Soat-Context-") {
				key := name[len("X-Soat-Context-"):]
				shown, ok := lookupFold(call.SoatContext, key)
				if !ok || shown != vals[0] {
					t.Errorf("%s: upstream has %s=%q, the tap shows %q (present %v)", c.Name, name, vals[0], shown, ok)
				}
			}
		}
		v := render(store, ui.Options{OpenCall: call.ID}, nil)
		if p := inertProblem(v); p != "" {
			t.Errorf("%s: detail: %s", c.Name, p)
		}
		for _, e := range call.Timeline() {
			if p := inertProblem(model.TextLine(e)); p != "" {
				t.Errorf("%s: text line: %s", c.Name, p)
			}
		}
		t.Logf("%s: forwarded; SOAT bag %q; warnings %d", c.Name, call.SoatContext, len(call.Warnings))
	}
	// The tap still serves after every attempt.
	client := newClient()
	errs, _ := runCalls(t, client, "http://"+tp.Addr(), nil, specs("soat-after", "work", 1, 900))
	if errs[0] != nil {
		t.Errorf("a normal call after the attempts: %v", errs[0])
	}
	shutdownTap(t, tp, client)
}

func lookupFold(m map[string]string, key string) (string, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}
