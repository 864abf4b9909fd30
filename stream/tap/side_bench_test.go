package tap

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// BenchmarkSideWork is the tap's own work for one small tools/call, off the
// request path: request parse and verification, the tool.call event, the
// result's parse and summary, the tool.result event, into a store.
func BenchmarkSideWork(b *testing.B) {
	tp, _ := newSideTap(b, "bench", "Bench")
	// A call of its own each time, as on the wire: a fresh token (no
	// token_reused warning) and exchange (a new call in the store, not one
	// call growing).
	calls := newBenchCalls(b, b.N)
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(us(processCPU()-cpu0)/float64(b.N), "cpu-µs/op") }()
	for i := 0; i < b.N; i++ {
		body, token := calls.next()
		ex := &exchange{t: tp, id: strconv.Itoa(i), start: time.Now(), method: "POST", header: signedHeader(token, true), body: body, bodyWhole: true}
		ex.req = tp.parseRequest(ex)
		ex.announce()
		ex.dispatch(time.Now(), result, 200)
		ex.end = nil
		ex.conclude(outcome{kind: outcomeResponse, resp: &responseStart{status: 200, contentType: "application/json"}})
	}
}

// newSideTap is the tap the side-work benchmarks and allocation pins run:
// it verifies with the test secret and instance id, and reaches no upstream.
func newSideTap(tb testing.TB, name, instanceName string) (*Tap, *model.Store) {
	tb.Helper()
	store := model.NewStore(model.Options{})
	tp, err := New(Config{Name: name, Upstream: "http://127.0.0.1:1", Secrets: [][]byte{testSecret}, InstanceID: testInstanceID, InstanceName: instanceName},
		output.NewHub(store))
	if err != nil {
		tb.Fatal(err)
	}
	return tp, store
}

// signedHeader is a call's header as the platform sends it, with its
// context token, and with a static credential too when credential says so.
func signedHeader(token string, credential bool) http.Header {
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	if credential {
		hdr.Set("Authorization", "Bearer static-credential")
	}
	hdr.Set(model.ContextHeader, token)
	return hdr
}
