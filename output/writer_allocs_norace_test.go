//go:build !race

package output

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"toolscope/model"
)

// The writer's goroutine encodes every event into one buffer it keeps:
// a tool.call with redacted headers, context and meta costs no allocation
// once that buffer has grown (issue 12: EncodeLine made a new line each time).
func TestWriterReusesItsLineBuffer(t *testing.T) {
	w := NewWriter(io.Discard, WriterConfig{Name: "test", Redactor: model.NewRedactor("X-Custom")})
	defer w.Close()
	call := model.Event{Time: at(1), Source: model.SourceTap, SourceName: "tap", Kind: model.KindToolCall,
		TaskID: "T1", ToolCallID: "call_a", Tool: "read", Arguments: json.RawMessage(`{"id":"A-17"}`),
		Meta:    map[string]any{"progressToken": 3.0, "agentarea/task_id": "T1"},
		Context: &model.Context{Present: true, Verdict: model.VerdictValid, Claims: map[string]any{"iss": "agentarea", "exp": 1.796e9}},
		Headers: map[string]string{"Authorization": "Bearer sk-1", "X-Agentarea-Context": "a.b.c", "Accept": "application/json"}}
	w.write(call) // the loop is idle: nothing is queued
	n := testing.AllocsPerRun(100, func() { w.write(call) })
	if n != 0 {
		t.Errorf("writing a tool.call: %.0f allocations, want none", n)
	}
	if line := string(w.line); !strings.Contains(line, `"Bearer [redacted]"`) || !strings.HasSuffix(line, "}\n") {
		t.Errorf("line: %s", line)
	}
}
