package otlp

import (
	"bytes"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// collector is a real OTLP/HTTP receiver on loopback: it decodes each
// protobuf ExportTraceServiceRequest the SDK sends to /v1/traces.
type collector struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource []*commonpb.KeyValue
	bodies   [][]byte // every request body, raw (secrets are searched in them)
	headers  []http.Header
	requests int
}

func newCollector(t testing.TB) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want protobuf on /v1/traces, got "+r.URL.Path+" "+r.Header.Get("Content-Type"), http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.requests++
		c.bodies = append(c.bodies, body)
		c.headers = append(c.headers, r.Header.Clone())
		for _, rs := range req.ResourceSpans {
			c.resource = rs.GetResource().GetAttributes()
			for _, ss := range rs.ScopeSpans {
				c.spans = append(c.spans, ss.Spans...)
			}
		}
		c.mu.Unlock()
		resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *collector) all() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span(nil), c.spans...)
}

func (c *collector) firstHeader() http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.headers[0]
}

func (c *collector) resourceAttrs() []*commonpb.KeyValue {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resource
}

// contains says whether any request body holds s.
func (c *collector) contains(s string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// spansWhere returns the spans whose string attribute key is value.
func spansWhere(spans []*tracepb.Span, key, value string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if v, ok := attr(s.Attributes, key); ok && v.GetStringValue() == value {
			out = append(out, s)
		}
	}
	return out
}

func attr(kvs []*commonpb.KeyValue, key string) (*commonpb.AnyValue, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

func strAttr(t *testing.T, kvs []*commonpb.KeyValue, key string) string {
	t.Helper()
	v, ok := attr(kvs, key)
	if !ok {
		t.Fatalf("no attribute %s", key)
	}
	return v.GetStringValue()
}

func intAttr(t *testing.T, kvs []*commonpb.KeyValue, key string) int64 {
	t.Helper()
	v, ok := attr(kvs, key)
	if !ok {
		t.Fatalf("no attribute %s", key)
	}
	return v.GetIntValue()
}

func boolAttr(t *testing.T, kvs []*commonpb.KeyValue, key string) bool {
	t.Helper()
	v, ok := attr(kvs, key)
	if !ok {
		t.Fatalf("no attribute %s", key)
	}
	return v.GetBoolValue()
}

func hexID(b []byte) string { return hex.EncodeToString(b) }

// newTestExporter is an exporter to c with a short linger, and the
// warnings it reports.
func newTestExporter(t *testing.T, url string, tune func(*Config)) (*Exporter, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := Config{URL: url, ServiceName: "toolscope-test", OnEvent: w.Emit, Linger: 20 * 1e6,
		BatchTimeout: 50 * 1e6, ExportTimeout: 2e9, CloseTimeout: 3e9}
	if tune != nil {
		tune(&cfg)
	}
	e, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, w
}

// warnings keeps the events the exporter reported, redacted as the hub
// (which the exporter reports to) redacts every event.
type warnings struct{ modeltest.Collector }

func (w *warnings) Emit(e model.Event) { w.Collector.Emit(model.RedactEvent(e)) }

// list is the warnings reported.
func (w *warnings) list() []model.Event { return w.of(model.KindWarning) }

// states is the export's source.status reports.
func (w *warnings) states() []model.Event { return w.of(model.KindSourceStatus) }

func (w *warnings) of(kind model.Kind) []model.Event {
	var out []model.Event
	for _, e := range w.Events() {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
