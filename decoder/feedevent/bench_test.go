package feedevent

import "testing"

var benchProgress = []byte(`{"event_type":"tool.progress","event_id":"ev-000000001","timestamp":"2026-07-29T10:00:02Z","data":{"task_id":"task-bench","tool_name":"mcp__sheets__read","tool_call_id":"call_1","progress":3,"total":8,"message":"Reading sheet 3 of 8"}}`)

// BenchmarkDecodeFeedEvent: one progress frame, the most frequent event.
func BenchmarkDecodeFeedEvent(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchProgress)))
	for b.Loop() {
		Decode("tool.progress", benchProgress, feedOpts)
	}
}
