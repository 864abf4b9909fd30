package output

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"toolscope/model"
)

func f64(v float64) *float64 { return &v }

// oneOfEachKind is an event of every kind with every field its kind uses.
func oneOfEachKind() []model.Event {
	base := model.Event{Time: time.Date(2026, 7, 29, 10, 0, 1, 500_000_000, time.UTC), Source: model.SourceTap, SourceName: "tap",
		TaskID: "T1", ToolCallID: "call_a", Tool: "read", Exchange: "4", RequestID: "3", IdempotencyKey: "T1:call_a"}
	with := func(f func(*model.Event)) model.Event { e := base; f(&e); return e }
	return []model.Event{
		with(func(e *model.Event) {
			e.Kind = model.KindToolCall
			e.Arguments = json.RawMessage(`{"orderId":"A-17"}`)
			e.Attempt = 2
			e.Meta = map[string]any{"agentarea/task_id": "T1", "agentarea/metadata": map[string]any{"chatId": "c-9"}}
			e.Context = &model.Context{Present: true, Verdict: model.VerdictRejected, HTTPStatus: 403, RPCCode: -32003, Reason: "tool mismatch",
				Claims: map[string]any{"iss": "agentarea"}, Steps: []model.Step{{Name: "signature", Passed: true}, {Name: "tool", Passed: false, Detail: "x"}}}
			e.SoatContext = map[string]string{"session_id": "sess_01"}
			e.AgentName = "mcp__sheets__read"
			e.TimeoutMS = 300000
			e.Headers = map[string]string{"Mcp-Method": "tools/call"}
		}),
		with(func(e *model.Event) {
			e.Kind = model.KindToolProgress
			e.Progress = 5
			e.Total = f64(23)
			e.Message = "Reading sheet 5 of 23"
			e.Relayed = model.BoolRef(true)
		}),
		with(func(e *model.Event) { e.Kind = model.KindToolProgress; e.Progress = 0.25 }),
		with(func(e *model.Event) {
			e.Kind = model.KindToolResult
			e.IsError, e.Error, e.Replayed, e.Attempt, e.DurationMS, e.HTTPStatus, e.RPCCode = true, "boom", true, 2, 1234, 200, -32603
			e.TextChars, e.TextPreview, e.Offloaded = 9000, "Hello", true
			e.Images = []model.Image{{ID: "img1", MimeType: "image/png", Size: 2048}, {MimeType: "image/bmp", Size: 10, Problem: "type"}}
			e.StructuredContent = json.RawMessage(`{"rows":[1,2]}`)
			e.StructuredContentBytes, e.StructuredContentDropped, e.Late = 17000, true, true
			e.ResultType, e.Denied = "complete", "policy"
		}),
		with(func(e *model.Event) { e.Kind = model.KindToolCancelled; e.Reason = "timeout" }),
		{Time: base.Time, Source: model.SourceFeed, SourceName: "task-1", Kind: model.KindTaskStatus, TaskID: "T1", EventType: "task.failed", Message: "m", Reason: "r", EventID: "e1"},
		{Time: base.Time, Source: model.SourceFeed, SourceName: "task-1", Kind: model.KindSourceStatus, State: model.StateReconnecting, Detail: "attempt 2: EOF"},
		{Time: base.Time, Source: model.SourceFeed, SourceName: "task-1", Kind: model.KindWarning, Code: "malformed_event", Message: "bad json"},
		{Time: base.Time, Source: model.SourceFeed, SourceName: "task-1", Kind: model.KindEvent, EventType: "llm.call.started", Data: json.RawMessage(`{"a":1}`)},
		{Time: base.Time, Source: model.SourceTap, SourceName: "tap", Kind: model.KindWire, Exchange: "7", Wire: &model.Wire{Transport: model.TransportHTTP,
			Request: &model.WireRequest{Method: "POST", Host: "127.0.0.1:7070", URL: "/mcp", HTTPVersion: "HTTP/1.1",
				Headers: [][2]string{{"Content-Type", "application/json"}}, Body: &model.WireBody{Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, Size: 40}},
			Response: &model.WireResponse{Status: 200, HTTPVersion: "HTTP/1.1", HeadMS: 1.5, EndMS: 2.25,
				Events: []model.WireEvent{{AtMS: 2, ID: "e1", Event: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{}}`}}, EventsCut: 1, EventsCutBytes: 900}}},
		{Time: base.Time, Source: model.SourceTap, SourceName: "tap", Kind: model.KindWire, Wire: &model.Wire{Transport: model.TransportStdio, From: "server",
			Message: &model.WireBody{Text: "{\"a\"", Size: 9000, Cut: true}}},
	}
}

func TestLinesRoundTripEveryKind(t *testing.T) {
	seen := map[model.Kind]bool{}
	for _, ev := range oneOfEachKind() {
		seen[ev.Kind] = true
		line := EncodeLine(&ev)
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("%s: not one line: %q", ev.Kind, line)
		}
		back, err := DecodeLine(line)
		if err != nil {
			t.Fatalf("%s: %v", ev.Kind, err)
		}
		if !reflect.DeepEqual(viaJSON(t, ev), viaJSON(t, back)) {
			t.Errorf("%s did not round-trip:\n in: %+v\nout: %+v", ev.Kind, ev, back)
		}
	}
	for _, k := range model.Kinds {
		if !seen[k] {
			t.Errorf("kind %s not covered", k)
		}
	}
}

// viaJSON compares through JSON values, so that numbers and nested maps
// compare equal after a round trip.
func viaJSON(t *testing.T, e model.Event) map[string]any {
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

// TestProgressFieldsAreAlwaysWritten: progress and total on every
// tool.progress, relayed where something relays (false written as false),
// and no relayed at all on plain MCP.
func TestProgressFieldsAreAlwaysWritten(t *testing.T) {
	ev := model.Event{Time: t0, Source: model.SourceTap, SourceName: "t", Kind: model.KindToolProgress, Progress: 0, Relayed: model.BoolRef(false)}
	line := EncodeLine(&ev)
	for _, want := range []string{`"progress":0`, `"total":null`, `"relayed":false`, `"time":"2026-07-29T10:00:00Z"`} {
		if !strings.Contains(string(line), want) {
			t.Errorf("%s lacks %s", line, want)
		}
	}
	ev.Relayed = nil
	if plain := EncodeLine(&ev); strings.Contains(string(plain), "relayed") || !strings.Contains(string(plain), `"total":null`) {
		t.Errorf("plain MCP progress: %s", plain)
	}
	call := model.Event{Time: t0, Kind: model.KindToolCall}
	if other := EncodeLine(&call); strings.Contains(string(other), "total") {
		t.Errorf("a call event carries progress fields: %s", other)
	}
	big := model.Event{Time: t0, Kind: model.KindToolProgress, Progress: 5242880, Total: f64(1e21)}
	if line := EncodeLine(&big); !strings.Contains(string(line), `"progress":5242880,"total":1e+21`) {
		t.Errorf("numbers not written as JSON writes them: %s", line)
	}
}

func TestJSONLinesAreTerminalSafe(t *testing.T) {
	ev := model.Event{Time: t0, Kind: model.KindToolResult, Error: "a\u009b31mb\u202eevil\x7f",
		Arguments: json.RawMessage("{\"x\":\"\xff\xfe\u009b2J\"}"), Message: "ok ✓ инструменты <b>\u2028"}
	line := EncodeLine(&ev)
	for _, raw := range []string{"\u009b", "\u202e", "\x7f", "\xff", "\x1b", "\u2028"} {
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

// TestNotJSONIsKeptAsText: a raw value that is not JSON is written as a
// string of its text; the line is never lost.
func TestNotJSONIsKeptAsText(t *testing.T) {
	ev := model.Event{Time: t0, Kind: model.KindToolCall, Arguments: json.RawMessage(`{"a":`),
		Meta: map[string]any{"n": json.Number("12x")}}
	back, err := DecodeLine(EncodeLine(&ev))
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Arguments) != `"{\"a\":"` || back.Meta["n"] != "12x" {
		t.Errorf("got arguments %s, meta %v", back.Arguments, back.Meta)
	}
}

// TestLinesAreTheEventsFields: every field of Event, Context, Step and
// Image, set alone and all at once, is written under its tag's name, in the
// struct's order, with the value encoding/json gives it: a field added to
// the structs without the encoder fails here. (The progress fields are
// always written, last, for a tool.progress: relayed where it is set.)
func TestLinesAreTheEventsFields(t *testing.T) {
	all := model.Event{}
	fill(reflect.ValueOf(&all).Elem())
	assertLineIsStruct(t, "every field", all)
	typ := reflect.TypeFor[model.Event]()
	for i := range typ.NumField() {
		for _, kind := range []model.Kind{model.KindToolCall, model.KindToolProgress} {
			ev := model.Event{Kind: kind}
			fill(reflect.ValueOf(&ev).Elem().Field(i))
			assertLineIsStruct(t, typ.Field(i).Name, ev)
		}
	}
}

var progressFields = []string{"progress", "total", "relayed"}

func assertLineIsStruct(t *testing.T, what string, ev model.Event) {
	t.Helper()
	line := EncodeLine(&ev)
	want, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var got, wantMap map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("%s: %v: %s", what, err, line)
	}
	if err := json.Unmarshal(want, &wantMap); err != nil {
		t.Fatal(err)
	}
	gotKeys, wantKeys := topKeys(t, line), topKeys(t, want)
	if ev.Kind != model.KindToolProgress {
		for _, k := range progressFields {
			delete(wantMap, k)
		}
		wantKeys = slices.DeleteFunc(wantKeys, func(k string) bool { return slices.Contains(progressFields, k) })
	} else {
		wantMap["progress"] = ev.Progress
		wantMap["total"] = nil
		if ev.Total != nil {
			wantMap["total"] = *ev.Total
		}
		written := progressFields
		if ev.Relayed == nil { // plain MCP: nothing relays
			written = progressFields[:2]
		}
		wantKeys = append(slices.DeleteFunc(wantKeys, func(k string) bool { return slices.Contains(progressFields, k) }), written...)
	}
	if !reflect.DeepEqual(got, wantMap) {
		t.Errorf("%s:\n got %s\nwant %s", what, line, want)
	}
	if !slices.Equal(gotKeys, wantKeys) {
		t.Errorf("%s: fields in order %v, want %v", what, gotKeys, wantKeys)
	}
}

// topKeys are the names of a JSON object's members, in order.
func topKeys(t *testing.T, b []byte) []string {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.ReadToken(); err != nil {
		t.Fatal(err)
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, name.String())
		if err := dec.SkipValue(); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// fill sets v to a value that is not empty, recursively.
func fill(v reflect.Value) {
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2026, 7, 29, 10, 0, 1, 5, time.UTC)))
		return
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage(` {"k" : [1, "<"]} `)))
		return
	case map[string]any:
		v.Set(reflect.ValueOf(map[string]any{"k": "v", "n": 1.5, "b": true}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s<" + v.Type().Name())
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(-7)
	case reflect.Float64:
		v.SetFloat(2.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0))
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(key)
		fill(val)
		m.SetMapIndex(key, val)
		v.Set(m)
	default:
		panic("fill: " + v.Type().String())
	}
}
