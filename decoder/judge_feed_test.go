package decoder

import (
	"encoding/json"
	"strings"
	"testing"

	"toolscope/model"
)

// TestFeedJudgment: what a feed relays is held to the same rules: a
// result's limits, a retry's arguments.
func TestFeedJudgment(t *testing.T) {
	var j Judge
	result := model.Event{Kind: model.KindToolResult, ToolCallID: "c", TextChars: 8001,
		Images:                 []model.Image{{MimeType: "image/png", Size: 100}, {MimeType: "image/bmp", Size: 6000000}},
		StructuredContent:      json.RawMessage(`{"rows":"` + strings.Repeat("r", 17000) + `"}`),
		StructuredContentBytes: 17011}
	ws := j.Feed(&result, false)
	if !result.Offloaded || result.Images[0].Problem != "" || !strings.Contains(result.Images[1].Problem, "type") ||
		!strings.Contains(result.Images[1].Problem, "5 MB") {
		t.Errorf("result %+v", result)
	}
	if len(ws) != 1 || ws[0].Code != model.WarnStructuredContentNotDropped {
		t.Errorf("result warnings %v", ws)
	}
	call := func(id, args string) []model.Warning {
		ev := model.Event{Kind: model.KindToolCall, EventID: id, IdempotencyKey: "t:c", Attempt: 1, Arguments: json.RawMessage(args)}
		return j.Feed(&ev, false)
	}
	if ws := call("e1", `{"a":1}`); len(ws) != 0 {
		t.Fatalf("first call: %v", ws)
	}
	if ws := call("e2", `{ "a" : 1.0 }`); len(ws) != 0 {
		t.Fatalf("a retry with the same arguments: %v", ws)
	}
	if ws := call("e3", `{"a":2}`); len(ws) != 1 || ws[0].Code != model.WarnRetryArgumentsChanged || !strings.Contains(ws[0].Message, "event e1") {
		t.Fatalf("a retry with other arguments: %v", ws)
	}
}
