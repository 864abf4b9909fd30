package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// oneOfEachKind is an event of every kind with every field its kind uses.
func oneOfEachKind() []Event {
	base := Event{Time: time.Date(2026, 7, 29, 10, 0, 1, 500_000_000, time.UTC), Source: SourceTap, SourceName: "tap",
		TaskID: "T1", ToolCallID: "call_a", Tool: "read", Exchange: "4", RequestID: "3", IdempotencyKey: "T1:call_a"}
	with := func(f func(*Event)) Event { e := base; f(&e); return e }
	return []Event{
		with(func(e *Event) {
			e.Kind = KindToolCall
			e.Arguments = json.RawMessage(`{"orderId":"A-17"}`)
			e.Attempt = 2
			e.Meta = map[string]any{"agentarea/task_id": "T1", "agentarea/metadata": map[string]any{"chatId": "c-9"}}
			e.Context = &Context{Present: true, Verdict: VerdictRejected, HTTPStatus: 403, RPCCode: -32003, Reason: "tool mismatch",
				Claims: map[string]any{"iss": "agentarea"}, Steps: []Step{{Name: "signature", Passed: true}, {Name: "tool", Passed: false, Detail: "x"}}}
			e.SoatContext = map[string]string{"session_id": "sess_01"}
			e.AgentName = "mcp__sheets__read"
			e.TimeoutMS = 300000
			e.Headers = map[string]string{"Mcp-Method": "tools/call"}
		}),
		with(func(e *Event) {
			e.Kind = KindToolProgress
			e.Progress = 5
			e.Total = f64(23)
			e.Message = "Reading sheet 5 of 23"
			e.Relayed = true
		}),
		with(func(e *Event) { e.Kind = KindToolProgress; e.Progress = 0.25 }),
		with(func(e *Event) {
			e.Kind = KindToolResult
			e.IsError, e.Error, e.Replayed, e.Attempt, e.DurationMS, e.HTTPStatus, e.RPCCode = true, "boom", true, 2, 1234, 200, -32603
			e.TextChars, e.TextPreview, e.Offloaded = 9000, "Hello", true
			e.Images = []Image{{ID: "img1", MimeType: "image/png", Size: 2048}, {MimeType: "image/bmp", Size: 10, Problem: "type"}}
			e.StructuredContent = json.RawMessage(`{"rows":[1,2]}`)
			e.StructuredContentBytes, e.StructuredContentDropped, e.Late = 17000, true, true
			e.ResultType, e.Denied = "complete", "policy"
		}),
		with(func(e *Event) { e.Kind = KindToolCancelled; e.Reason = "timeout" }),
		{Time: base.Time, Source: SourceFeed, SourceName: "task-1", Kind: KindTaskStatus, TaskID: "T1", EventType: "task.failed", Message: "m", Reason: "r", EventID: "e1"},
		{Time: base.Time, Source: SourceFeed, SourceName: "task-1", Kind: KindSourceStatus, State: StateReconnecting, Detail: "attempt 2: EOF"},
		{Time: base.Time, Source: SourceFeed, SourceName: "task-1", Kind: KindWarning, Code: "malformed_event", Message: "bad json"},
		{Time: base.Time, Source: SourceFeed, SourceName: "task-1", Kind: KindEvent, EventType: "llm.call.started", Data: json.RawMessage(`{"a":1}`)},
		{Time: base.Time, Source: SourceTap, SourceName: "tap", Kind: KindWire, Exchange: "7", Wire: &Wire{Transport: TransportHTTP,
			Request: &WireRequest{Method: "POST", Host: "127.0.0.1:7070", URL: "/mcp", HTTPVersion: "HTTP/1.1",
				Headers: [][2]string{{"Content-Type", "application/json"}}, Body: &WireBody{Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, Size: 40}},
			Response: &WireResponse{Status: 200, HTTPVersion: "HTTP/1.1", HeadMS: 1.5, EndMS: 2.25,
				Events: []WireEvent{{AtMS: 2, ID: "e1", Event: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{}}`}}, EventsCut: 1, EventsCutBytes: 900}}},
		{Time: base.Time, Source: SourceTap, SourceName: "tap", Kind: KindWire, Wire: &Wire{Transport: TransportStdio, From: "server",
			Message: &WireBody{Text: "{\"a\"", Size: 9000, Cut: true}}},
	}
}

func TestCodecRoundTripsEveryKind(t *testing.T) {
	seen := map[Kind]bool{}
	for _, ev := range oneOfEachKind() {
		seen[ev.Kind] = true
		line, err := EncodeLine(ev)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("%s: not one line: %q", ev.Kind, line)
		}
		back, err := DecodeLine(line)
		if err != nil {
			t.Fatalf("%s: %v", ev.Kind, err)
		}
		if !reflect.DeepEqual(normalize(t, ev), normalize(t, back)) {
			t.Errorf("%s did not round-trip:\n in: %+v\nout: %+v", ev.Kind, ev, back)
		}
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("kind %s not covered", k)
		}
	}
}

// normalize compares through JSON values so that map[string]any numbers and
// nested maps compare equal after a round trip.
func normalize(t *testing.T, e Event) map[string]any {
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestProgressFieldsAreAlwaysWritten(t *testing.T) {
	ev := Event{Time: t0, Source: SourceFeed, SourceName: "f", Kind: KindToolProgress, Progress: 0}
	line, _ := EncodeLine(ev)
	for _, want := range []string{`"progress":0`, `"total":null`, `"relayed":false`, `"time":"2026-07-29T10:00:00Z"`} {
		if !strings.Contains(string(line), want) {
			t.Errorf("%s lacks %s", line, want)
		}
	}
	other, _ := EncodeLine(Event{Time: t0, Kind: KindToolCall})
	if strings.Contains(string(other), "total") {
		t.Errorf("a call event carries progress fields: %s", other)
	}
}

func TestSecretsAreRedactedBeforeWriting(t *testing.T) {
	token := "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJhZ2VudGFyZWEifQ.c2lnbmF0dXJlLXNlY3JldA"
	ev := Event{Time: t0, Kind: KindToolCall, Headers: map[string]string{
		"Authorization": "Bearer sk-live-123", "X-Api-Key": "k-999", "Cookie": "sid=abc",
		"X-Agentarea-Context": token, "Mcp-Method": "tools/call"}}
	line, _ := EncodeLine(ev)
	text := TextLine(ev)
	for _, secret := range []string{"sk-live-123", "k-999", "sid=abc", "c2lnbmF0dXJlLXNlY3JldA"} {
		if strings.Contains(string(line), secret) || strings.Contains(text, secret) {
			t.Errorf("secret %q written: %s", secret, line)
		}
	}
	if !strings.Contains(string(line), "Bearer [redacted]") || !strings.Contains(string(line), "tools/call") {
		t.Errorf("redaction lost too much: %s", line)
	}
	if ev.Headers["Authorization"] != "Bearer sk-live-123" {
		t.Error("redaction modified the original event")
	}
}

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"plain":                    "plain",
		"\x1b]52;c;ZXZpbA==\x07hi": "␛]52;c;ZXZpbA==␇hi",
		"\x1b[2J\x1b[31mred":       "␛[2J␛[31mred",
		"a\nb\tc\rd":               "a⏎b c␍d",
		"bad\xffutf8":              "bad\uFFFDutf8",
		"\u009b31m c1 csi":         "\uFFFD31m c1 csi",
		"rtl\u202eevil":            "rtl\uFFFDevil",
		"Reading sheet 5 of 23 ✓":  "Reading sheet 5 of 23 ✓",
		"инструменты":              "инструменты",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SanitizeBlock("a\nb\x1b[1m"); got != "a\nb␛[1m" {
		t.Errorf("SanitizeBlock = %q", got)
	}
}

func TestJSONLinesAreTerminalSafe(t *testing.T) {
	ev := Event{Time: t0, Kind: KindToolResult, Error: "a\u009b31mb\u202eevil\x7f",
		Arguments: json.RawMessage("{\"x\":\"\xff\xfe\u009b2J\"}"), Message: "ok ✓ инструменты"}
	line, err := EncodeLine(ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u009b", "\u202e", "\x7f", "\xff", "\x1b"} {
		if strings.Contains(string(line), raw) {
			t.Errorf("line carries %q raw: %s", raw, line)
		}
	}
	back, err := DecodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if back.Error != ev.Error || back.Message != ev.Message {
		t.Errorf("values changed: %q %q", back.Error, back.Message)
	}
	if !strings.Contains(string(back.Arguments), `\u009b2J`) && !strings.Contains(string(back.Arguments), "\u009b2J") {
		t.Errorf("arguments lost: %s", back.Arguments)
	}
}

func TestTextLineNeverSplitsACharacter(t *testing.T) {
	ev := Event{Time: t0, Kind: KindToolCall, TaskID: "задача-один", ToolCallID: "c", Arguments: json.RawMessage(`"` + strings.Repeat("ж", 100) + `"`)}
	line := TextLine(ev)
	if !utf8.ValidString(line) || strings.ContainsRune(line, utf8.RuneError) {
		t.Errorf("split character: %q", line)
	}
}

// EncodeLine writes exactly what json.Marshal of the redacted event writes
// (it skips only json.Marshal's second compaction of the same bytes).
func TestEncodeLineIsJSONMarshal(t *testing.T) {
	events := oneOfEachKind()
	odd := events[0]
	odd.Arguments = json.RawMessage("{ \"q\" : \"<a&b>\\u2028\" }")
	odd.Message = "<tag> & \u2028"
	odd.Headers = map[string]string{"Authorization": "Bearer secret-token-value"}
	for _, ev := range append(events, odd) {
		want, err := json.Marshal(Redact(ev))
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeLine(ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(TerminalSafeJSON(want))+"\n" {
			t.Errorf("%s:\n got %s\nwant %s", ev.Kind, got, want)
		}
	}
}
