package feedevent

import (
	"testing"

	"toolscope/model"
)

// TestFeedResultInPlatformWords: a feed's failed tool.result says in the
// platform's words (the tool context contract's; docs/warning-codes.md)
// when the call timed out or the server rejected the credentials; the event
// says so in fields.
func TestFeedResultInPlatformWords(t *testing.T) {
	for _, tc := range []struct {
		name, err string
		timedOut  bool
		status    int
	}{
		{"timeout", "MCP tool call timed out: no result within 5 s", true, 0},
		{"401", "MCP tool call failed: sheets.example.com rejected the credentials (HTTP 401)", false, 401},
		{"403", "MCP tool call failed: 127.0.0.1:7070 rejected the credentials (HTTP 403)", false, 403},
		{"other failure", "MCP tool call failed: upstream said no (-32603)", false, 0},
		{"a tool's own words", "the report timed out waiting for MCP tool call timed out", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := `{"event_type":"tool.result","event_id":"e1","data":{"task_id":"T","tool_name":"mcp__demo__export","tool_call_id":"c1","success":false,"error":"` + tc.err + `"}}`
			ev := Decode("tool.result", []byte(data), feedOpts).Event
			if ev.Kind != model.KindToolResult || ev.TimedOut != tc.timedOut || ev.HTTPStatus != tc.status || ev.Error != tc.err {
				t.Errorf("kind %s timed_out %v http_status %d error %q", ev.Kind, ev.TimedOut, ev.HTTPStatus, ev.Error)
			}
		})
	}
}
