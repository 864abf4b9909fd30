package tap

import (
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// BenchmarkSideWorkResponse is BenchmarkSideWork without the request's parse
// and verification (done off the clock, a batch at a time): the tool.call's
// emit, the result's parse and summary, the tool.result's emit and the
// conclusion, into a store.
func BenchmarkSideWorkResponse(b *testing.B) { benchSideWorkResponse(b, false) }

// BenchmarkSideWorkResponseRead is BenchmarkSideWorkResponse with the
// answer read as the proxy hands it over: off a side pipe whose body has
// ended (a call answered within the parse grace), through readResponse.
func BenchmarkSideWorkResponseRead(b *testing.B) { benchSideWorkResponse(b, true) }

func benchSideWorkResponse(b *testing.B, read bool) {
	tp, _ := newSideTap(b, "bench", "Bench")
	const batch = 512
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
	exs := make([]*exchange, 0, batch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(exs) == 0 {
			b.StopTimer()
			for j := 0; j < batch; j++ {
				// A call of its own each time (as BenchmarkSideWork).
				meta := contractMeta(fmt.Sprintf("task-%d", i+j), fmt.Sprintf("call-%d", i+j), 1)
				body := callBody(b, 1, "lookup", map[string]any{"orderId": "A-17"}, meta)
				jti := fmt.Sprintf("0b8f6a1e-6a8e-4f0e-b3c1-%012d", i+j)
				token := mintToken(b, testSecret, "lookup", meta, func(m jwt.MapClaims) { m["jti"] = jti })
				ex := &exchange{t: tp, id: strconv.Itoa(i + j), start: time.Now(), method: "POST", header: signedHeader(token, true), body: body, bodyWhole: true}
				ex.req = tp.parseRequest(ex)
				exs = append(exs, ex)
			}
			b.StartTimer()
		}
		ex := exs[len(exs)-1]
		exs = exs[:len(exs)-1]
		ex.announce()
		rs := &responseStart{status: 200, contentType: "application/json"}
		if read {
			rs.contentLength, rs.pipe = int64(len(result)), newSidePipe(tp.cfg.MaxParseBytes)
			rs.pipe.put(result)
			rs.pipe.finish(io.EOF)
			ex.readResponse(rs)
		} else {
			ex.dispatch(time.Now(), result, 200)
			ex.end = nil
		}
		ex.conclude(outcome{kind: outcomeResponse, resp: rs})
	}
}
