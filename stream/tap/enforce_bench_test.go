package tap

import (
	"net/http"
	"testing"
	"time"

	"toolscope/model"
)

// BenchmarkEnforceDecision is what --enforce adds to the request path of
// one small valid tools/call: the parse, the strict reading (CheckStrict)
// and the token's verification, then the decision to forward.
func BenchmarkEnforceDecision(b *testing.B) {
	tp, err := New(Config{Name: "bench", Upstream: "http://127.0.0.1:1", Enforce: true, Secrets: [][]byte{testSecret},
		InstanceID: testInstanceID}, model.SinkFunc(func(model.Event) {}))
	if err != nil {
		b.Fatal(err)
	}
	calls := newBenchCalls(b, 4096)
	b.ReportAllocs()
	for b.Loop() {
		body, token := calls.next()
		hdr := http.Header{"Content-Type": {"application/json"}}
		hdr.Set(model.ContextHeader, token)
		ex := &exchange{t: tp, id: "1", start: time.Now(), method: http.MethodPost, header: hdr, body: body, bodyWhole: true}
		judged := tp.judgeRequest(ex)
		ex.req = tp.sortRequest(ex, judged, true)
		if a := judged.Answer; a != nil {
			b.Fatalf("refused: %s", a.Reason)
		}
	}
}
