package feed

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"toolscope/model"
	"toolscope/output"
)

// stamped is a feed envelope with its own timestamp.
func stamped(eventType, eventID, ts string, data map[string]any) string {
	data["task_id"] = "task-rules"
	b, _ := json.Marshal(map[string]any{"event_type": eventType, "event_id": eventID, "timestamp": ts, "data": data})
	return string(b)
}

// TestFeedRuleWarnings: on a feed alone, a tool.progress relayed closer than
// 0.5 s to the previous one (a completion excepted) and structured_content
// over 16000 characters that was not dropped are warnings on the call.
func TestFeedRuleWarnings(t *testing.T) {
	total := 4.0
	prog := func(id, ts string, p float64) (string, string) {
		return "tool.progress", stamped("tool.progress", id, ts, map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t", "progress": p, "total": total})
	}
	srv := newFeedServer(t, func(w *sseWriter, r *http.Request, conn int) {
		w.frame("tool.call", stamped("tool.call", "e1", "2026-07-29T10:00:00.050Z", map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t"}))
		w.frame(prog("e2", "2026-07-29T10:00:00.100Z", 1))
		w.frame(prog("e3", "2026-07-29T10:00:00.300Z", 2)) // 0.2 s: too soon
		w.frame(prog("e4", "2026-07-29T10:00:00.900Z", 3)) // 0.6 s: fine
		w.frame(prog("e5", "2026-07-29T10:00:01.000Z", 4)) // completion: always relayed
		w.frame("tool.result", stamped("tool.result", "e6", "2026-07-29T10:00:01.100Z", map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t",
			"success": true, "result": "ok", "structured_content": map[string]any{"rows": strings.Repeat("r", 16000)}}))
		// Whole-second stamps cannot be judged; dropped content is fine.
		w.frame("tool.call", stamped("tool.call", "f1", "2026-07-29T10:00:02Z", map[string]any{"tool_call_id": "c2", "tool_name": "mcp__s__t"}))
		w.frame("tool.progress", stamped("tool.progress", "f2", "2026-07-29T10:00:03Z", map[string]any{"tool_call_id": "c2", "progress": 1}))
		w.frame("tool.progress", stamped("tool.progress", "f3", "2026-07-29T10:00:03Z", map[string]any{"tool_call_id": "c2", "progress": 2}))
		w.frame("tool.result", stamped("tool.result", "f4", "2026-07-29T10:00:04Z", map[string]any{"tool_call_id": "c2", "success": true,
			"structured_content_dropped": true}))
		w.frame("task.completed", stamped("task.completed", "e9", "2026-07-29T10:00:05Z", map[string]any{}))
	})
	store := model.NewStore(model.Options{})
	if err := runFeed(t, testConfig(srv.url("task-rules")), output.NewHub(store)); err != nil {
		t.Fatal(err)
	}
	s := store.Snapshot()
	count := map[string]map[string]int{}
	for _, c := range s.Calls {
		count[c.ToolCallID] = map[string]int{}
		for _, w := range c.Warnings {
			count[c.ToolCallID][w.Code]++
		}
		if len(c.Warnings) > 0 && c.Flags&model.FlagWarning == 0 {
			t.Errorf("call %s has warnings but no warning flag", c.ToolCallID)
		}
	}
	if count["c1"]["progress_relayed_too_soon"] != 1 || count["c1"]["structured_content_not_dropped"] != 1 {
		t.Errorf("c1 warnings %v, want one progress_relayed_too_soon and one structured_content_not_dropped", count["c1"])
	}
	if len(count["c2"]) != 0 {
		t.Errorf("c2 warnings %v, want none", count["c2"])
	}
}
