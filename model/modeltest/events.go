package modeltest

import (
	"encoding/json"
	"time"

	"toolscope/model"
)

// Events as the tap produces them under load, for benchmarks of what every
// event passes (redaction, encoding): a verified tool.call with its
// credential and token, and its tool.result.

// TapToken is a context token as a client sends it (HS256, three parts).
const TapToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJhZ2VudGFyZWEiLCJ0b29sIjoiZ2V0X29yZGVyIn0.3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789A"

// TapCall is a verified tool.call as a tap emits it, headers unredacted.
func TapCall() model.Event {
	iat := time.Date(2026, 11, 30, 11, 59, 48, 0, time.UTC).Unix()
	claims := RoundTrip(map[string]any{
		"iss": "agentarea", "aud": "7c0d5a4e-0b1f-4c55-9d2a-1f3e5b6a7c8d", "iat": iat, "exp": iat + 300,
		"jti": "5b1e7a52-3f0c-4d7e-8b9a-0c1d2e3f4a5b", "tool": "get_order", "protocol": "1",
		"task_id": "6f1c", "tool_call_id": "call_abc", "idempotency_key": "6f1c:call_abc",
		"metadata": map[string]any{"chatId": "c-9", "nested": map[string]any{"a": 1, "b": []any{1, 2}}},
	})
	meta := RoundTrip(map[string]any{
		"agentarea/task_id": "6f1c", "agentarea/tool_call_id": "call_abc",
		"agentarea/idempotency_key": "6f1c:call_abc", "agentarea/protocol": "1",
		"agentarea/metadata": map[string]any{"chatId": "c-9"},
	})
	return model.Event{
		Time: time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC), Source: model.SourceTap, SourceName: "tap",
		Kind: model.KindToolCall, TaskID: "6f1c", ToolCallID: "call_abc", Tool: "get_order", Exchange: "1842",
		RequestID: "17", IdempotencyKey: "6f1c:call_abc",
		Arguments: json.RawMessage(`{"orderId":"A-17","include":["lines","customer"],"limit":25}`),
		Attempt:   1, Meta: meta,
		Context: &model.Context{Present: true, Verdict: model.VerdictValid,
			Header: map[string]any{"alg": "HS256", "typ": "JWT"}, Claims: claims,
			Steps: []model.Step{{Name: "present", Passed: true}, {Name: "format", Passed: true},
				{Name: "signature", Passed: true, Detail: "HS256"}, {Name: "expiry", Passed: true, Detail: "expires in 288s"},
				{Name: "audience", Passed: true}, {Name: "tool", Passed: true}, {Name: "ids", Passed: true}},
			CredentialPresent: true},
		AgentName: "mcp__orders__get_order", TimeoutMS: 300000,
		Headers: map[string]string{"Authorization": "Bearer sk-live-0123456789abcdef", "X-Agentarea-Context": TapToken,
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Session-Id": "9f8e7d6c-5b4a-3210-fedc-ba9876543210", "Mcp-Protocol-Version": "2025-06-18",
			"User-Agent": "agentarea-mcp-client/1.4.2", "Traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	}
}

// TapResult is TapCall's tool.result.
func TapResult() model.Event {
	return model.Event{
		Time: time.Date(2026, 11, 30, 12, 0, 0, 187654321, time.UTC), Source: model.SourceTap, SourceName: "tap",
		Kind: model.KindToolResult, TaskID: "6f1c", ToolCallID: "call_abc", Tool: "get_order", Exchange: "1842",
		RequestID: "17", IdempotencyKey: "6f1c:call_abc", DurationMS: 64, HTTPStatus: 200, TextChars: 412,
		TextPreview: "Order A-17 (2 lines): 1 × Widget <blue> & 3 × Gadget, customer Anna Müller, total €48.20 — shipped 2026-11-28",
		StructuredContent: json.RawMessage(`{"orderId":"A-17","status":"shipped","lines":[{"sku":"W-1","qty":1,"price":12.5},` +
			`{"sku":"G-7","qty":3,"price":11.9}],"customer":{"name":"Anna Müller","id":"user-42"},"total":48.2}`),
		StructuredContentBytes: 187, ResultType: "complete",
	}
}
