package hardening_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/token"
	"toolscope/model"
)

// retainedCalls is how many finished calls one benchmark iteration keeps.
const retainedCalls = 5000

// typicalCall applies one finished call as a tap and a feed report it: a
// tool.call with a verified context token, _meta, headers and arguments;
// 20 progress notifications from the tap and 5 relayed by the feed; the
// feed's tool.call and result; the tap's result with a text preview and
// structured content.
func typicalCall(b testing.TB, s *model.Store, i int, at time.Time) {
	spec := callSpec{Task: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f", ToolCallID: fmt.Sprintf("call_%08d", i), Tool: "export_sheet", ID: i}
	meta := spec.meta()
	args := json.RawMessage(fmt.Sprintf(`{"spreadsheet_id":"1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms","sheet":"orders-%d","range":"A1:Z1000","format":"csv"}`, i))
	tok := spec.token(b)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Session-Id", "3f0a9c2e-5d1b-4e8f-a7c6-1b2d3e4f5a6b")
	h.Set("X-AgentArea-Context", tok)
	ctx, _ := token.Verify(token.Input{Token: tok, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID,
		ToolName: spec.Tool, Meta: meta, Now: at})
	headers := map[string]string{}
	for k, v := range h {
		headers[k] = model.RedactHeader(k, strings.Join(v, ", "))
	}
	base := model.Event{Source: model.SourceTap, SourceName: "tap", TaskID: spec.Task, ToolCallID: spec.ToolCallID,
		Tool: spec.Tool, Exchange: fmt.Sprint(i), RequestID: fmt.Sprint(i), IdempotencyKey: spec.Task + ":" + spec.ToolCallID}
	call := base
	call.Time, call.Kind, call.Arguments, call.Context, call.Headers, call.TimeoutMS = at, model.KindToolCall, args, &ctx, headers, 300000
	call.Meta = map[string]any{}
	for k, v := range meta {
		if strings.HasPrefix(k, "agentarea/") {
			call.Meta[k] = v
		}
	}
	call.AgentName = "mcp__sheets__export_sheet"
	s.Apply(call)
	feedBase := model.Event{Source: model.SourceFeed, SourceName: "6f1c2d3e", TaskID: spec.Task, ToolCallID: spec.ToolCallID, Tool: "mcp__sheets__export_sheet"}
	fc := feedBase
	fc.Time, fc.Kind, fc.EventID, fc.Arguments = at.Add(time.Millisecond), model.KindToolCall, fmt.Sprintf("ev-%d-0", i), args
	s.Apply(fc)
	total := 20.0
	for p := 1; p <= 20; p++ {
		ev := base
		ev.Time, ev.Kind, ev.Progress, ev.Total = at.Add(time.Duration(p)*100*time.Millisecond), model.KindToolProgress, float64(p), &total
		ev.Message, ev.Relayed = fmt.Sprintf("Reading sheet %d of 20", p), model.BoolRef(p%4 == 0)
		s.Apply(ev)
		if p%4 == 0 {
			fe := feedBase
			fe.Time, fe.Kind, fe.EventID, fe.Progress, fe.Total, fe.Message, fe.Relayed = ev.Time, model.KindToolProgress, fmt.Sprintf("ev-%d-%d", i, p), float64(p), &total, ev.Message, model.BoolRef(true)
			s.Apply(fe)
		}
	}
	r := base
	r.Time, r.Kind, r.HTTPStatus, r.DurationMS, r.TextChars = at.Add(2100*time.Millisecond), model.KindToolResult, 200, 2100, 4120
	r.TextPreview = "Exported 4,120 rows from orders to orders.csv (1.2 MB). Columns: id, customer, status, total, currency, created_at, shipped_at, carrier, tracking"
	r.StructuredContent = json.RawMessage(`{"rows":4120,"file":"orders.csv","bytes":1234567,"columns":9}`)
	r.StructuredContentBytes = len(r.StructuredContent)
	s.Apply(r)
	fr := feedBase
	fr.Time, fr.Kind, fr.EventID, fr.TextChars, fr.DurationMS = r.Time.Add(time.Millisecond), model.KindToolResult, fmt.Sprintf("ev-%d-r", i), 4120, 2100
	s.Apply(fr)
}

// BenchmarkRetainedCall fills a store with finished calls of typical
// content (tap and feed joined, a verified token, 20 progress
// notifications) and reports the heap each retained call costs.
func BenchmarkRetainedCall(b *testing.B) {
	at := time.Now().UTC()
	var perCall float64
	b.ReportAllocs()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := model.NewStore(model.Options{MaxFinishedCalls: retainedCalls})
		b.StartTimer()
		for i := 0; i < retainedCalls; i++ {
			typicalCall(b, s, i, at)
		}
		b.StopTimer()
		if snap := s.Snapshot(); len(snap.Calls) != retainedCalls || snap.Calls[0].Status != model.StatusOK || len(snap.Calls[0].Sources) != 2 {
			b.Fatalf("%d calls, first %s", len(snap.Calls), describe(snap.Calls[0]))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perCall += float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / retainedCalls
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.ReportMetric(perCall/float64(b.N), "B/call")
}
