package tap

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"toolscope/decoder"
	"toolscope/model"
	"toolscope/output"
)

// BenchmarkParseRequest is the request side of BenchmarkSideWork alone:
// parseRequest for one small signed tools/call (Verify included), nothing
// emitted.
func BenchmarkParseRequest(b *testing.B) {
	tp, err := New(Config{Name: "bench", Upstream: "http://127.0.0.1:1", Secrets: [][]byte{testSecret}, InstanceID: testInstanceID, InstanceName: "Bench"}, output.NewHub(model.NewStore(model.Options{})))
	if err != nil {
		b.Fatal(err)
	}
	calls := newBenchCalls(b, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(us(processCPU()-cpu0)/float64(b.N), "cpu-µs/op") }()
	for i := 0; i < b.N; i++ {
		body, token := calls.next()
		hdr := http.Header{}
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Authorization", "Bearer static-credential")
		hdr.Set(decoder.ContextHeader, token)
		ex := &exchange{t: tp, id: strconv.Itoa(i), start: time.Now(), method: "POST", header: hdr, body: body, bodyWhole: true}
		if pr := tp.parseRequest(ex); len(pr.calls) != 1 {
			b.Fatal("no call")
		}
	}
}
