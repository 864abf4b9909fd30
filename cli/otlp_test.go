package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"toolscope/model/modeltest"
)

// TestReplayExportsSpans: `replay --otlp URL` sends the recording's calls as
// spans to a real OTLP/HTTP receiver, one `execute_tool <tool>` span per
// attempt, and a collector that is down is a warning, not a failure.
// spanNames is a real OTLP/HTTP receiver on loopback: it decodes each
// protobuf export and keeps the spans' names.
type spanNames struct {
	*httptest.Server
	mu     sync.Mutex
	names  []string
	bodies []byte // every export as received (its strings are plain bytes)
}

func newSpanNames(t *testing.T) *spanNames {
	r := &spanNames{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var export coltracepb.ExportTraceServiceRequest
		if req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &export) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, body...)
		for _, rs := range export.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.names = append(r.names, s.Name)
				}
			}
		}
		r.mu.Unlock()
		resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *spanNames) received() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.bodies...)
}

func (r *spanNames) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.names...)
}

func TestReplayExportsSpans(t *testing.T) {
	srv := newSpanNames(t)
	code := -1
	captureStdout(t, func() {
		code = run([]string{"replay", modeltest.SessionFile(), "--output", "json", "--speed", "0", "--otlp", srv.URL})
	})
	if code != 0 {
		t.Fatalf("replay --otlp: exit %d", code)
	}
	names := srv.all()
	if len(names) == 0 {
		t.Fatal("no span reached the collector")
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "execute_tool ") {
			t.Errorf("span %q, want execute_tool <tool>", n)
		}
	}

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // nothing listens there now
	out := captureStdout(t, func() {
		code = run([]string{"replay", modeltest.SessionFile(), "--output", "json", "--speed", "0", "--otlp", down.URL})
	})
	if code != 0 {
		t.Fatalf("replay with the collector down: exit %d, want 0 (export never changes the exit)", code)
	}
	if !strings.Contains(out, `"otlp_export_failed"`) {
		t.Errorf("no otlp_export_failed warning in the output")
	}
}
