//go:build !race

package model

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRetainedCallBytes holds what the store keeps of a finished tap call
// of AgentArea's (_meta, a verified token's claims and header, the request
// headers, arguments, a small result), counted with runtime.MemStats over
// twice the store's limit so that eviction runs: a call's maps, a body
// its raw values were cut from, or evicted calls kept too long would each
// show. TestRetainedTapCallBytes (stream/tap) counts the same through the
// tap's side work. TOOLSCOPE_HEAPPROFILE=file writes the full store's heap
// profile.
func TestRetainedCallBytes(t *testing.T) {
	const kept = 10000
	const maxBytes = 5800 // 5,404 measured, texts 1.5 KB of it (a real token is long)
	s := NewStore(Options{MaxFinishedCalls: kept})
	start := time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 2 * kept {
		call, result := retainedTapCall(i, start.Add(time.Duration(i)*time.Millisecond))
		s.ApplyTakingNotes(&call)
		s.ApplyTakingNotes(&result)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	snap := s.Snapshot()
	last := snap.Calls[len(snap.Calls)-1]
	if len(snap.Calls) != kept || last.Status != StatusOK || len(last.Context.ClaimMap()) != 11 ||
		last.Meta()["agentarea/task_id"] == nil || len(last.Headers()) != 6 || len(last.Timeline()) != 2 {
		t.Fatalf("%d calls; the last: %s, %d claims, meta %v, %d headers, %d timeline events", len(snap.Calls),
			last.Status, len(last.Context.ClaimMap()), last.Meta(), len(last.Headers()), last.TimelineLen())
	}
	if path := os.Getenv("TOOLSCOPE_HEAPPROFILE"); path != "" {
		runtime.GC() // the profile is as of the last collection but one
		f, err := os.Create(path)
		if err == nil {
			err = pprof.WriteHeapProfile(f)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	perCall := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / kept
	t.Logf("%.0f bytes of heap per retained call", perCall)
	if perCall > maxBytes {
		t.Errorf("%.0f bytes of heap per retained call, want at most %d", perCall, maxBytes)
	}
	runtime.KeepAlive(s)
}

// retainedTapCall is a tap's tool.call and tool.result as the hub hands
// them to the store: each map, string and raw value made fresh (a source
// reads them from its bodies), the raw values cut from a larger body.
func retainedTapCall(i int, at time.Time) (call, result Event) {
	n := strconv.Itoa(i)
	task, id := "6f1c2d3e-4b5a-4c6d-8e7f-"+strings.Repeat("0", 12-len(n))+n, "a45b2a83-c991-4038-944c-"+strings.Repeat("1", 12-len(n))+n
	idem := task + ":" + id
	body := []byte(`{"jsonrpc":"2.0","id":` + n + `,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-17"},"_meta":{}}}`)
	args := body[bytesIndex(body, `{"orderId"`):][:len(`{"orderId":"A-17"}`):len(`{"orderId":"A-17"}`)]
	meta := map[string]any{"agentarea/task_id": task, "agentarea/tool_call_id": id, "agentarea/idempotency_key": idem,
		"agentarea/workspace_id": "ws-bench", "agentarea/protocol": "1"}
	claims := map[string]any{"aud": "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "exp": 1.796215451e9, "iat": 1.796215151e9,
		"iss": "agentarea", "jti": "953a0164-e983-41cd-aed9-" + strings.Repeat("2", 12-len(n)) + n, "protocol": "1",
		"task_id": task, "tool_call_id": id, "idempotency_key": idem, "tool": "get_order", "workspace_id": "ws-bench"}
	ctx := &Context{Present: true, Verdict: VerdictValid, Header: map[string]any{"alg": "HS256", "typ": "JWT"}, Claims: claims,
		Steps: []Step{{Name: "signature", Passed: true, Detail: "HS256 signature valid; iss agentarea, aud is the instance id"},
			{Name: "tool", Passed: true, Detail: `tool "get_order" equals params.name`},
			{Name: "meta", Passed: true, Detail: `5 agentarea/* keys equal their claims; protocol "1" known`},
			{Name: "run", Passed: true, Detail: "steps 1-3 passed: the server may run the tool"}}}
	headers := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
		"Mcp-Method": "tools/call", "Mcp-Name": "get_order", "Mcp-Protocol-Version": "2026-07-28",
		"X-Agentarea-Context": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + strings.Repeat("e", 560) + "." + Redacted}
	base := Event{Source: SourceTap, SourceName: "tap", TaskID: task, ToolCallID: id, Tool: "get_order",
		Exchange: n, RequestID: n, IdempotencyKey: idem}
	call, result = base, base
	call.Time, call.Kind, call.Arguments, call.Meta, call.Context, call.Headers, call.TimeoutMS = at, KindToolCall, args, meta, ctx, headers, 300000
	answer := []byte(`{"jsonrpc":"2.0","id":` + n + `,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
	sc := answer[bytesIndex(answer, `{"status"`):][:len(`{"status":"shipped"}`):len(`{"status":"shipped"}`)]
	result.Time, result.Kind, result.HTTPStatus, result.DurationMS = at.Add(time.Millisecond), KindToolResult, 200, 1
	result.TextChars, result.TextPreview, result.StructuredContent, result.StructuredContentBytes = 19, "order A-17: shipped", sc, len(sc)
	result.ResultType = "complete"
	return call, result
}

func bytesIndex(b []byte, s string) int { return strings.Index(string(b), s) }
