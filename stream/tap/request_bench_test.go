package tap

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkParseRequest is the request side of BenchmarkSideWork alone:
// parseRequest for one small signed tools/call (Verify included), nothing
// emitted.
func BenchmarkParseRequest(b *testing.B) {
	tp, _ := newSideTap(b, "bench", "Bench")
	calls := newBenchCalls(b, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(us(processCPU()-cpu0)/float64(b.N), "cpu-µs/op") }()
	for i := 0; i < b.N; i++ {
		body, token := calls.next()
		ex := &exchange{t: tp, id: strconv.Itoa(i), start: time.Now(), method: "POST", header: signedHeader(token, true), body: body, bodyWhole: true}
		if pr := tp.parseRequest(ex); len(pr.calls) != 1 {
			b.Fatal("no call")
		}
	}
}
