package feedevent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

var feedOpts = Options{SourceName: "t1", TaskID: "task-from-url", Now: time.Date(2026, 7, 29, 9, 0, 0, 0, time.UTC)}

func TestDecodeFeedEventEnvelopes(t *testing.T) {
	full := `{"event_type":"tool.progress","event_id":"5b0c","timestamp":"2026-07-29T10:00:01.5Z","data":{"task_id":"6f1c","tool_name":"app__get_order","tool_call_id":"call_abc","progress":5,"total":23,"message":"Reading sheet 5 of 23"}}`
	fr := Decode("tool.progress", []byte(full), feedOpts)
	ev := fr.Event
	if ev.Kind != model.KindToolProgress || ev.EventID != "5b0c" || ev.TaskID != "6f1c" || ev.ToolCallID != "call_abc" ||
		ev.Tool != "app__get_order" || ev.Progress != 5 || ev.Total == nil || *ev.Total != 23 ||
		ev.Message != "Reading sheet 5 of 23" || !ev.IsRelayed() || ev.Source != model.SourceFeed || ev.SourceName != "t1" {
		t.Fatalf("full envelope: %+v", ev)
	}
	if want := time.Date(2026, 7, 29, 10, 0, 1, 500e6, time.UTC); !ev.Time.Equal(want) {
		t.Fatalf("time %v, want %v", ev.Time, want)
	}

	// Without event_id and timestamp: the type comes from the envelope, the
	// task from the URL, the time is now.
	bare := `{"event_type":"tool.call","data":{"tool_name":"mcp__srv__lookup","tool_call_id":"c1","arguments":{"q":1}}}`
	ev = Decode("", []byte(bare), feedOpts).Event
	if ev.Kind != model.KindToolCall || ev.EventID != "" || ev.TaskID != "task-from-url" || !ev.Time.Equal(feedOpts.Now) ||
		ev.Tool != "mcp__srv__lookup" || string(ev.Arguments) != `{"q":1}` {
		t.Fatalf("bare envelope: %+v", ev)
	}

	// A numeric event_id is kept as its text.
	ev = Decode("tool.call", []byte(`{"event_type":"tool.call","event_id":42,"data":{"tool_call_id":"c1"}}`), feedOpts).Event
	if ev.EventID != "42" {
		t.Fatalf("numeric id: %q", ev.EventID)
	}

	// A timestamp without a zone is UTC.
	ev = Decode("tool.call", []byte(`{"event_type":"tool.call","timestamp":"2026-07-29T10:00:02.25","data":{"tool_call_id":"c1"}}`), feedOpts).Event
	if want := time.Date(2026, 7, 29, 10, 0, 2, 250e6, time.UTC); !ev.Time.Equal(want) {
		t.Fatalf("naive time %v", ev.Time)
	}
}

func TestDecodeFeedEventControlFrames(t *testing.T) {
	fr := Decode("connected", []byte(`{"task_id":"T","agent_id":"A","execution_id":"X","message":"Connected","timestamp":"2026-07-29T10:00:00Z"}`), feedOpts)
	if fr.Event.Kind != model.KindSourceStatus || fr.Event.State != model.StateConnected || fr.Event.TaskID != "T" ||
		!strings.Contains(fr.Event.Detail, "Connected") || !strings.Contains(fr.Event.Detail, "X") || fr.Terminal {
		t.Fatalf("connected: %+v", fr)
	}
	if !fr.Event.Time.Equal(feedOpts.Now) { // when toolscope saw it, after its own "connecting"
		t.Errorf("connected at %v, the server's clock; want %v, the time it arrived", fr.Event.Time, feedOpts.Now)
	}
	for _, data := range []string{`{"task_id":"T"}`, `ping`, ``} {
		if fr := Decode("heartbeat", []byte(data), feedOpts); fr.Event.Kind != "" || len(fr.Warnings) != 0 {
			t.Fatalf("heartbeat %q: %+v", data, fr)
		}
	}
	fr = Decode("error", []byte(`{"task_id":"T","error":"redis went away","timestamp":"2026-07-29T10:00:00Z"}`), feedOpts)
	if fr.Event.Kind != model.KindWarning || fr.Event.Code != "feed_error" || fr.Event.Message != "redis went away" || fr.ServerError != "redis went away" {
		t.Fatalf("error frame: %+v", fr)
	}
	// An empty data field dispatches nothing (the SSE rule).
	if fr := Decode("tool.call", nil, feedOpts); fr.Event.Kind != "" {
		t.Fatalf("empty: %+v", fr)
	}
}

func TestDecodeFeedEventToolResult(t *testing.T) {
	cases := []struct {
		name, event, data string
		check             func(t *testing.T, ev model.Event)
	}{
		{"success", "tool.result", `{"event_type":"tool.result","event_id":"e1","data":{"tool_name":"mcp__s__t","tool_call_id":"c","success":true,"result":"héllo","execution_time":1.25,"attempt":2,"replayed":true}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Kind != model.KindToolResult || ev.IsError || ev.TextChars != 5 || ev.TextPreview != "héllo" || ev.Attempt != 2 ||
					!ev.Replayed || ev.DurationMS != 1250 || ev.Offloaded {
					t.Fatalf("%+v", ev)
				}
			}},
		{"failure", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":false,"error":"boom"}}`,
			func(t *testing.T, ev model.Event) {
				if !ev.IsError || ev.Error != "boom" {
					t.Fatalf("%+v", ev)
				}
			}},
		{"exception without success", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","error":{"message":"timed out"},"iteration":3}}`,
			func(t *testing.T, ev model.Event) {
				if !ev.IsError || ev.Error != "timed out" {
					t.Fatalf("%+v", ev)
				}
			}},
		{"denied by policy", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":false,"error":"denied","denied_by_policy":true}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Denied != "policy" || !ev.IsError {
					t.Fatalf("%+v", ev)
				}
			}},
		{"denied by human", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":false,"denied_by_human":true}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Denied != "human" || !ev.IsError {
					t.Fatalf("%+v", ev)
				}
			}},
		{"structured and images", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":true,"result":"","structured_content":{"rows":[1,2,3]},"images":[{"id":"i1","mime_type":"image/png","size":100},{"id":"i2","mime_type":"image/bmp","size":6000000}]}}`,
			func(t *testing.T, ev model.Event) {
				if ev.StructuredContentBytes != len(`{"rows":[1,2,3]}`) || string(ev.StructuredContent) != `{"rows":[1,2,3]}` || len(ev.Images) != 2 {
					t.Fatalf("%+v", ev)
				}
				if ev.Images[0].ID != "i1" || ev.Images[1].MimeType != "image/bmp" || ev.Images[1].Size != 6000000 {
					t.Fatalf("images %+v", ev.Images)
				}
			}},
		{"structured dropped", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":true,"structured_content_dropped":true}}`,
			func(t *testing.T, ev model.Event) {
				if !ev.StructuredContentDropped || ev.StructuredContentBytes != 0 {
					t.Fatalf("%+v", ev)
				}
			}},
		{"offloaded text", "tool.result", `{"event_type":"tool.result","data":{"tool_call_id":"c","success":true,"result":"` + strings.Repeat("x", 8001) + `"}}`,
			func(t *testing.T, ev model.Event) {
				if ev.TextChars != 8001 || len([]rune(ev.TextPreview)) != model.PreviewChars {
					t.Fatalf("chars %d preview %d", ev.TextChars, len(ev.TextPreview))
				}
			}},
		{"old ToolCallFailed", "ToolCallFailed", `{"event_type":"ToolCallFailed","data":{"tool_call_id":"c","tool_name":"x"}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Kind != model.KindToolResult || !ev.IsError {
					t.Fatalf("%+v", ev)
				}
			}},
		{"old ToolCallCompleted", "ToolCallCompleted", `{"event_type":"ToolCallCompleted","data":{"tool_call_id":"c","success":true,"result":"ok"}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Kind != model.KindToolResult || ev.IsError || ev.TextChars != 2 {
					t.Fatalf("%+v", ev)
				}
			}},
		{"old ToolCallStarted", "ToolCallStarted", `{"event_type":"ToolCallStarted","data":{"tool_call_id":"c","tool_name":"mcp__a__b"}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Kind != model.KindToolCall || ev.Tool != "mcp__a__b" {
					t.Fatalf("%+v", ev)
				}
			}},
		{"nested data flattened", "tool.call", `{"event_type":"tool.call","data":{"task_id":"T9","data":{"tool_call_id":"inner","tool_name":"n"},"original_data":{"tool_call_id":"orig","arguments":{"a":1}}}}`,
			func(t *testing.T, ev model.Event) {
				if ev.ToolCallID != "inner" || ev.Tool != "n" || ev.TaskID != "T9" || string(ev.Arguments) != `{"a":1}` {
					t.Fatalf("%+v", ev)
				}
			}},
		{"progress without total", "tool.progress", `{"event_type":"tool.progress","data":{"tool_call_id":"c","progress":0.5,"total":null}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Progress != 0.5 || ev.Total != nil || !ev.IsRelayed() {
					t.Fatalf("%+v", ev)
				}
			}},
		{"SSE name used when envelope has none", "tool.call", `{"event_id":"e5","data":{"tool_call_id":"c"}}`,
			func(t *testing.T, ev model.Event) {
				if ev.Kind != model.KindToolCall || ev.EventID != "e5" {
					t.Fatalf("%+v", ev)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := Decode(c.event, []byte(c.data), feedOpts)
			if len(fr.Warnings) != 0 || fr.Terminal {
				t.Fatalf("unexpected warnings/terminal: %+v", fr)
			}
			c.check(t, fr.Event)
		})
	}
}

func TestDecodeFeedEventTaskStatus(t *testing.T) {
	cases := []struct {
		event, data string
		terminal    bool
	}{
		{"task.completed", `{"event_type":"task.completed","data":{"message":"done"}}`, true},
		{"task.completed", `{"event_type":"task.completed","data":{"message":"waiting","execution_status":"waiting"}}`, false},
		{"task.failed", `{"event_type":"task.failed","data":{"message":"m","reason":"r"}}`, true},
		{"task.cancelled", `{"event_type":"task.cancelled","data":{"reason":"user"}}`, true},
		{"task_completed", `{"event_type":"task_completed","data":{}}`, true},
		{"task_failed", `{"event_type":"task_failed","data":{"error":"x"}}`, true},
		{"task_cancelled", `{"event_type":"task_cancelled","data":{}}`, true},
		{"workflow_completed", `{"event_type":"workflow_completed","data":{}}`, true},
		{"workflow_failed", `{"event_type":"workflow_failed","data":{}}`, true},
		{"task.started", `{"event_type":"task.started","data":{}}`, false},
		{"task.awaiting_follow_up", `{"event_type":"task.awaiting_follow_up","data":{}}`, false},
	}
	for _, c := range cases {
		fr := Decode(c.event, []byte(c.data), feedOpts)
		if fr.Event.Kind != model.KindTaskStatus || fr.Terminal != c.terminal || fr.Event.EventType != c.event {
			t.Errorf("%s %s: kind %s terminal %v type %q", c.event, c.data, fr.Event.Kind, fr.Terminal, fr.Event.EventType)
		}
	}
	fr := Decode("task.failed", []byte(`{"event_type":"task.failed","data":{"message":"m","reason":"r"}}`), feedOpts)
	if fr.Event.Message != "m" || fr.Event.Reason != "r" {
		t.Fatalf("%+v", fr.Event)
	}
	fr = Decode("task_failed", []byte(`{"event_type":"task_failed","data":{"error":"x"}}`), feedOpts)
	if fr.Event.Reason != "x" {
		t.Fatalf("reason from error: %+v", fr.Event)
	}
}

func TestDecodeFeedEventPassthrough(t *testing.T) {
	for _, typ := range []string{"approval.request", "approval.response", "llm.call.completed", "llm.call.chunk", "BudgetWarning", "artifact.created", "something.new"} {
		data := `{"event_type":"` + typ + `","event_id":"id-` + typ + `","data":{"tool_call_id":"c7","escalation_id":"x","n":1}}`
		fr := Decode(typ, []byte(data), feedOpts)
		ev := fr.Event
		if ev.Kind != model.KindEvent || ev.EventType != typ || ev.ToolCallID != "c7" || ev.EventID != "id-"+typ {
			t.Fatalf("%s: %+v", typ, ev)
		}
		var m map[string]any
		if err := json.Unmarshal(ev.Data, &m); err != nil || m["escalation_id"] != "x" {
			t.Fatalf("%s data %s", typ, ev.Data)
		}
	}
	// A frame without an envelope and an unknown name passes through whole.
	ev := Decode("custom", []byte(`{"a":1}`), feedOpts).Event
	if ev.Kind != model.KindEvent || ev.EventType != "custom" || string(ev.Data) != `{"a":1}` {
		t.Fatalf("%+v", ev)
	}
}

func TestDecodeFeedEventMalformed(t *testing.T) {
	for _, data := range []string{`{"event_type":"tool.call","data":{`, `not json`, `{"a":1}}`} {
		fr := Decode("tool.call", []byte(data), feedOpts)
		if fr.Event.Kind != model.KindWarning || fr.Event.Code != "malformed_event" || fr.Event.EventID != "" || fr.Terminal {
			t.Fatalf("%q: %+v", data, fr)
		}
		if !strings.Contains(fr.Event.Message, "tool.call") {
			t.Fatalf("message does not name the event: %s", fr.Event.Message)
		}
	}
	// A field of the wrong type: the rest is kept, and a warning says which.
	fr := Decode("tool.progress", []byte(`{"event_type":"tool.progress","event_id":"e","data":{"tool_call_id":"c","progress":"five","total":10}}`), feedOpts)
	if fr.Event.Kind != model.KindToolProgress || fr.Event.ToolCallID != "c" || fr.Event.Total == nil || len(fr.Warnings) != 1 ||
		fr.Warnings[0].Code != "unexpected_field_type" || fr.Warnings[0].EventID != "" {
		t.Fatalf("%+v", fr)
	}
}

func TestDecodeHistoryEvent(t *testing.T) {
	item := `{"id":"h1","task_id":"T","agent_id":"A","execution_id":"X","timestamp":"2026-07-29T10:00:00Z","event_type":"tool.result","message":"","metadata":{"tool_name":"mcp__s__t","tool_call_id":"c","success":true,"result":"abc"}}`
	ev := DecodeHistory([]byte(item), feedOpts).Event
	if ev.Kind != model.KindToolResult || ev.EventID != "h1" || ev.TaskID != "T" || ev.ToolCallID != "c" || ev.TextChars != 3 ||
		!ev.Time.Equal(time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v", ev)
	}
	fr := DecodeHistory([]byte(`{"id":"h2","event_type":"task.completed","message":"all done","metadata":null}`), feedOpts)
	if !fr.Terminal || fr.Event.Message != "all done" || fr.Event.TaskID != "task-from-url" {
		t.Fatalf("%+v", fr)
	}
	if fr := DecodeHistory([]byte(`[1,2]`), feedOpts); fr.Event.Code != "malformed_event" {
		t.Fatalf("%+v", fr)
	}
}

func FuzzDecodeFeedEvent(f *testing.F) {
	f.Add("tool.progress", []byte(`{"event_type":"tool.progress","event_id":"5b0c","timestamp":"2026-07-29T10:00:01.5Z","data":{"task_id":"6f1c","tool_name":"app__get_order","tool_call_id":"call_abc","progress":5,"total":23}}`))
	f.Add("tool.result", []byte(`{"event_type":"tool.result","data":{"tool_call_id":"c","success":false,"error":{"message":"x"},"images":[{"id":1,"mime_type":"image/png","size":3}],"structured_content":[1]}}`))
	f.Add("connected", []byte(`{"task_id":"T","message":"hi"}`))
	f.Add("error", []byte(`{"error":"e"}`))
	f.Add("task.completed", []byte(`{"event_type":"task.completed","data":{"execution_status":"waiting","data":{"a":1},"original_data":{"b":2}}}`))
	f.Add("", []byte(`{`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		fr := Decode(name, data, feedOpts)
		if fr.Event.Kind == "" && len(fr.Warnings) > 0 {
			t.Fatalf("warnings without an event: %+v", fr)
		}
		for _, w := range fr.Warnings {
			if w.EventID != "" {
				t.Fatalf("a warning carries an event id: %+v", w)
			}
		}
		if fr.Terminal && fr.Event.Kind != model.KindTaskStatus {
			t.Fatalf("terminal frame of kind %s", fr.Event.Kind)
		}
		if fr.Event.Kind != "" {
			if _, err := output.DecodeLine(output.EncodeLine(&fr.Event)); err != nil {
				t.Fatalf("event does not encode: %v", err)
			}
		}
	})
}

func FuzzDecodeHistoryEvent(f *testing.F) {
	f.Add([]byte(`{"id":"h1","task_id":"T","agent_id":"A","execution_id":"X","timestamp":"2026-07-29T10:00:00Z","event_type":"tool.result","message":"","metadata":{"tool_call_id":"c","success":true,"result":"abc"}}`))
	f.Add([]byte(`{"id":7,"event_type":"task.completed","metadata":null,"data":{"execution_status":"waiting"}}`))
	f.Add([]byte(`{"event_type":"approval.request","metadata":[1]}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		fr := DecodeHistory(item, feedOpts)
		if fr.Event.Kind == "" {
			t.Fatalf("a history item decoded to nothing: %q", item)
		}
		if fr.Terminal && fr.Event.Kind != model.KindTaskStatus {
			t.Fatalf("terminal frame of kind %s", fr.Event.Kind)
		}
		if _, err := output.DecodeLine(output.EncodeLine(&fr.Event)); err != nil {
			t.Fatalf("event does not encode: %v", err)
		}
	})
}
