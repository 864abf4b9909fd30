//go:build !race

package tap

import (
	"strconv"
	"testing"
	"time"

	"toolscope/model"
)

// The tap's own work for one signed tools/call and its result (request
// parse, verification, cross-call checks, summary, store) stays under a
// ceiling of allocations: 270 before issue 12, 150 after its first session,
// 70 once the request and response sides and the store stopped building
// maps and copies they did not need, 64 once the request side kept its
// one call in the request itself, Verify read typed claims and the store
// kept a call's keys in its entry, 66 once the hub's redaction (one policy
// for every source) copies the headers map holding a credential rather
// than the tap redacting its own; 113 once issue 23 put every body
// through the one reader (jsontext), the token through golang-jwt and a
// server's messages through one dispatch, with the hand-written fast paths
// gone; 111 once the token's key lists were sized once and the store
// kept a call event's texts in one allocation; 90 once Verify decoded the
// token's segments into one pooled buffer, listed its keys on the stack
// and built its details without fmt, _meta's contract keys were the
// constants and the arguments' digest used a pooled buffer (each call a
// new one with a fresh token, as on the wire: no warning).
func TestSideWorkAllocations(t *testing.T) {
	tp, store := newSideTap(t, "allocs", "")
	calls := newBenchCalls(t, 64) // 51 runs: each token and exchange is new
	seq := 0
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
	n := testing.AllocsPerRun(50, func() {
		body, token := calls.next()
		seq++
		ex := &exchange{t: tp, id: strconv.Itoa(seq), start: time.Now(), method: "POST", header: signedHeader(token, false), body: body, bodyWhole: true}
		ex.req = tp.parseRequest(ex)
		ex.announce()
		ex.dispatch(time.Now(), result, 200)
		ex.end = nil
		ex.conclude(outcome{kind: outcomeResponse, resp: &responseStart{status: 200, contentType: "application/json"}})
	})
	t.Logf("%.0f allocations per call on the tap's side", n)
	if n > 90 {
		t.Errorf("%.0f allocations per call on the tap's side, want at most 90", n)
	}
	s := store.Snapshot()
	if s.Events == 0 {
		t.Fatal("the tap reported nothing")
	}
	for _, e := range allEvents(s) {
		if e.Kind == model.KindWarning {
			t.Fatalf("a warning the wire would not give: %s", model.TextLine(e))
		}
	}
}
