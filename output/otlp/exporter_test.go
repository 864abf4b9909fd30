package otlp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"toolscope/model"
)

var t0 = time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func total(f float64) *float64 { return &f }

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
	secretToken = "eyJhbGciOiJIUzI1NiJ9.eyJ0YXNrIjoiMSJ9.c2lnbmF0dXJlLXNlY3JldA"
	secretCred  = "sk-live-credential-4242"
	secretPass  = "hunter2-password-value"
	sessionID   = "session-7f3a9c1e-never-exported"
)

// oneCall is a call as a tap and a feed see it: the feed's tool.call,
// the tap's (with _meta's traceparent, headers and token), three
// notifications the tap saw (two relayed, which the feed also reports),
// a warning, the tap's result then the feed's.
func oneCall() []model.Event {
	tap := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:sheets", Kind: kind,
			TaskID: "task-1", ToolCallID: "call_abc", Tool: "read_workbook", Exchange: "3", RequestID: "7",
			IdempotencyKey: "task-1:call_abc"}
	}
	feed := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceFeed, SourceName: "feed:q3", Kind: kind,
			TaskID: "task-1", ToolCallID: "call_abc", Tool: "mcp__sheets__read_workbook"}
	}
	call := tap(model.KindToolCall, 1)
	call.Arguments = json.RawMessage(`{"file":"q3.xlsx","password":"` + secretPass + `"}`)
	call.TraceParent = "00-" + parentTrace + "-" + parentSpan + "-01"
	call.TraceState = "rojo=00f067aa0ba902b7"
	call.Headers = map[string]string{"Mcp-Session-Id": sessionID, "Mcp-Protocol-Version": "2026-07-28",
		"Authorization": "Bearer " + secretCred, "X-Agentarea-Context": secretToken}
	call.Context = &model.Context{Present: true, Verdict: model.VerdictValid, CredentialPresent: true,
		Claims: map[string]any{"end_user_id": "user-42"}}
	call.Meta = map[string]any{"agentarea/task_id": "task-1"}
	p := func(ms int, v float64, relayed bool, msg string) model.Event {
		ev := tap(model.KindToolProgress, ms)
		ev.Progress, ev.Total, ev.Relayed, ev.Message = v, total(3), model.BoolRef(relayed), msg
		return ev
	}
	fp := func(ms int, v float64) model.Event {
		ev := feed(model.KindToolProgress, ms)
		ev.Progress, ev.Total, ev.Relayed = v, total(3), model.BoolRef(true)
		return ev
	}
	warn := tap(model.KindWarning, 40)
	warn.Code, warn.Message = "progress_not_increasing", "progress went from 2 to 2"
	res := tap(model.KindToolResult, 1500)
	res.TextChars, res.TextPreview, res.HTTPStatus = 9000, "Sheet 1\x1b[31m: 42 rows", 200
	res.Images = []model.Image{{MimeType: "image/png", Size: 2048}}
	res.StructuredContentBytes = 70000
	fres := feed(model.KindToolResult, 1600)
	fres.Offloaded, fres.StructuredContentDropped, fres.Replayed = true, true, true
	fres.TextChars = 9000
	return []model.Event{feed(model.KindToolCall, 0), call,
		p(10, 1, true, "sheet 1 of 3"), fp(12, 1), p(20, 2, false, "sheet 2\x07 of 3"), warn,
		p(1000, 3, true, "done"), fp(1002, 3), res, fres}
}

func TestSpanOfACallSeenByTapAndFeed(t *testing.T) {
	c := newCollector(t)
	e, w := newTestExporter(t, c.URL, nil)
	for _, ev := range oneCall() {
		e.Emit(ev)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1 (tap and feed are one attempt): %v", len(spans), spans)
	}
	s := spans[0]
	if s.Name != "execute_tool read_workbook" || s.Kind != tracepb.Span_SPAN_KIND_INTERNAL {
		t.Errorf("name %q kind %v", s.Name, s.Kind)
	}
	if hexID(s.TraceId) != parentTrace || hexID(s.ParentSpanId) != parentSpan {
		t.Errorf("trace %s parent %s: not a child of _meta's traceparent", hexID(s.TraceId), hexID(s.ParentSpanId))
	}
	if s.TraceState != "rojo=00f067aa0ba902b7" {
		t.Errorf("tracestate %q", s.TraceState)
	}
	if s.StartTimeUnixNano != uint64(at(0).UnixNano()) || s.EndTimeUnixNano != uint64(at(1500).UnixNano()) {
		t.Errorf("start %d end %d: want the feed's tool.call and the tap's result", s.StartTimeUnixNano, s.EndTimeUnixNano)
	}
	want := map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_workbook",
		"gen_ai.tool.call.id": "call_abc", "agentarea/tool_call_id": "call_abc",
		"mcp.method.name": "tools/call", "jsonrpc.request.id": "7", "mcp.protocol.version": "2026-07-28",
		"agentarea.task.id": "task-1", "agentarea.context.verdict": "valid",
		"agentarea.tool.qualified_name": "mcp__sheets__read_workbook", "toolscope.exchange": "3",
	}
	for k, v := range want {
		if got := strAttr(t, s.Attributes, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if got := strAttr(t, s.Attributes, "mcp.session.id"); !strings.HasPrefix(got, "sha256:") || len(got) != 7+16 {
		t.Errorf("mcp.session.id = %q, want a digest", got)
	}
	ints := map[string]int64{"agentarea.attempt": 1, "agentarea.result.text.chars": 9000,
		"agentarea.result.images.count": 1, "agentarea.result.images.bytes": 2048,
		"agentarea.result.structured_content.bytes": 70000, "toolscope.progress.sent_count": 3,
		"toolscope.progress.relayed_count": 2, "toolscope.http.status_code": 200, "toolscope.warnings": 1,
		"toolscope.arguments.bytes": int64(len(oneCall()[1].Arguments))}
	for k, v := range ints {
		if got := intAttr(t, s.Attributes, k); got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	for _, k := range []string{"agentarea.replayed", "agentarea.result.offloaded", "agentarea.result.structured_content.dropped", "agentarea.credential.present"} {
		if !boolAttr(t, s.Attributes, k) {
			t.Errorf("%s not true", k)
		}
	}
	if p := strAttr(t, s.Attributes, "toolscope.result.preview"); strings.ContainsRune(p, 0x1b) || !strings.Contains(p, "42 rows") {
		t.Errorf("result preview %q: want sanitised text", p)
	}
	if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("status %v for a call that succeeded", s.Status)
	}
	// Events: the tap's three notifications (not the feed's copies) and the warning.
	var names []string
	for _, ev := range s.Events {
		names = append(names, ev.Name)
	}
	if strings.Join(names, ",") != "progress,progress,warning,progress" {
		t.Fatalf("events %v", names)
	}
	p2 := s.Events[1]
	if p2.TimeUnixNano != uint64(at(20).UnixNano()) {
		t.Errorf("progress event at %d", p2.TimeUnixNano)
	}
	if v, _ := attr(p2.Attributes, "toolscope.progress.value"); v.GetDoubleValue() != 2 {
		t.Errorf("progress value %v", v)
	}
	if v, _ := attr(p2.Attributes, "toolscope.progress.total"); v.GetDoubleValue() != 3 {
		t.Errorf("progress total %v", v)
	}
	if boolAttr(t, p2.Attributes, "toolscope.progress.relayed") || !boolAttr(t, s.Events[0].Attributes, "toolscope.progress.relayed") {
		t.Error("relayed flags of the progress events")
	}
	if m := strAttr(t, p2.Attributes, "toolscope.progress.message"); m != "sheet 2␇ of 3" {
		t.Errorf("progress message %q: want sanitised", m)
	}
	if code := strAttr(t, s.Events[2].Attributes, "toolscope.warning.code"); code != "progress_not_increasing" {
		t.Errorf("warning code %q", code)
	}
	if v, ok := attr(c.resourceAttrs(), "service.name"); !ok || v.GetStringValue() != "toolscope-test" {
		t.Errorf("service.name %v", v)
	}
	if len(w.list()) != 0 {
		t.Errorf("warnings %v with a working collector", w.list())
	}
}

// Secrets never leave: no token, credential, header value or raw session
// id in anything sent; a secret argument is redacted in the preview (by
// the hub, which hands every output redacted events).
func TestSecretsNeverExported(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	for _, ev := range oneCall() {
		e.Emit(model.RedactEvent(ev))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if len(c.all()) == 0 {
		t.Fatal("nothing exported")
	}
	for _, s := range []string{secretToken, "c2lnbmF0dXJlLXNlY3JldA", secretCred, secretPass, sessionID, "user-42"} {
		if c.contains(s) {
			t.Errorf("%q was exported", s)
		}
	}
	prev := strAttr(t, c.all()[0].Attributes, "toolscope.arguments.preview")
	if !strings.Contains(prev, `"password":"[redacted]"`) || !strings.Contains(prev, "q3.xlsx") {
		t.Errorf("arguments preview %q", prev)
	}
}

// Attempts: a retry is a second span, linked to the first; failures set
// status Error with the reason and error.type.
func TestAttemptsAndFailures(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	tap := func(kind model.Kind, ms int, exchange, task string) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:x", Kind: kind,
			TaskID: task, ToolCallID: "call_1", Tool: "post_entry", Exchange: exchange, RequestID: `"r-` + exchange + `"`}
	}
	evs := []model.Event{tap(model.KindToolCall, 0, "1", "t-retry")}
	rpcErr := tap(model.KindToolResult, 100, "1", "t-retry")
	rpcErr.RPCCode, rpcErr.Error = -32603, "internal error: ledger locked"
	evs = append(evs, rpcErr, tap(model.KindToolCall, 1100, "2", "t-retry"), tap(model.KindToolResult, 1200, "2", "t-retry"))

	evs = append(evs, tap(model.KindToolCall, 0, "3", "t-cancel"))
	cancel := tap(model.KindToolCancelled, 5000, "3", "t-cancel")
	cancel.Reason = "timed out after 5 s"
	evs = append(evs, cancel)

	evs = append(evs, tap(model.KindToolCall, 0, "4", "t-iserror"))
	isErr := tap(model.KindToolResult, 10, "4", "t-iserror")
	isErr.IsError, isErr.Error = true, "no such sheet"
	evs = append(evs, isErr)

	rej := tap(model.KindToolCall, 0, "5", "t-rejected")
	rej.Context = &model.Context{Present: true, Verdict: model.VerdictRejected, HTTPStatus: 401, RPCCode: -32001, Reason: "signature does not verify"}
	rejRes := tap(model.KindToolResult, 5, "5", "t-rejected")
	rejRes.HTTPStatus, rejRes.Error = 401, "HTTP 401"
	evs = append(evs, rej, rejRes)
	for _, ev := range evs {
		e.Emit(ev)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	retry := spansWhere(spans, "agentarea.task.id", "t-retry")
	if len(retry) != 2 {
		t.Fatalf("%d spans for the retried call, want 2", len(retry))
	}
	first, second := retry[0], retry[1]
	if intAttr(t, first.Attributes, "agentarea.attempt") != 1 {
		first, second = second, first
	}
	if intAttr(t, second.Attributes, "agentarea.attempt") != 2 {
		t.Fatal("attempt numbers")
	}
	if first.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || first.Status.Message != "internal error: ledger locked" {
		t.Errorf("first attempt status %v", first.Status)
	}
	if strAttr(t, first.Attributes, "error.type") != "-32603" || strAttr(t, first.Attributes, "rpc.response.status_code") != "-32603" {
		t.Error("error.type / rpc.response.status_code of a JSON-RPC error")
	}
	if strAttr(t, first.Attributes, "jsonrpc.request.id") != "r-1" {
		t.Error("jsonrpc.request.id of a string id")
	}
	if second.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("second attempt status %v", second.Status)
	}
	if len(second.Links) != 1 || hexID(second.Links[0].SpanId) != hexID(first.SpanId) {
		t.Errorf("the retry's links %v: want the first attempt", second.Links)
	}
	cases := []struct{ task, msg, errType string }{
		{"t-cancel", "cancelled: timed out after 5 s", "cancelled"},
		{"t-iserror", "no such sheet", "tool_error"},
		{"t-rejected", "HTTP 401", "401"},
	}
	for _, tc := range cases {
		ss := spansWhere(spans, "agentarea.task.id", tc.task)
		if len(ss) != 1 {
			t.Fatalf("%s: %d spans", tc.task, len(ss))
		}
		s := ss[0]
		if s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || s.Status.Message != tc.msg {
			t.Errorf("%s: status %v, want error %q", tc.task, s.Status, tc.msg)
		}
		if got := strAttr(t, s.Attributes, "error.type"); got != tc.errType {
			t.Errorf("%s: error.type %q, want %q", tc.task, got, tc.errType)
		}
		if len(s.ParentSpanId) != 0 {
			t.Errorf("%s: a parent without a traceparent", tc.task)
		}
	}
	if got := spansWhere(spans, "agentarea.task.id", "t-cancel")[0]; got.EndTimeUnixNano != uint64(at(5000).UnixNano()) || got.Events[0].Name != "cancelled" {
		t.Errorf("cancelled span ends %d, events %v", got.EndTimeUnixNano, got.Events)
	}
	if v := strAttr(t, spansWhere(spans, "agentarea.task.id", "t-rejected")[0].Attributes, "agentarea.context.verdict"); v != "rejected" {
		t.Errorf("verdict %q", v)
	}
}
