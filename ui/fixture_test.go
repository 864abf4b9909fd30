package ui

import (
	"encoding/json"
	"fmt"
	"time"

	"toolscope/model"
)

// t0 is the fixed start of every fixture; fixedNow is the injected clock.
var (
	t0       = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	fixedNow = t0.Add(65 * time.Second)
)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func fptr(f float64) *float64 { return &f }

const (
	taskA = "6f1c2a9e-4b7d-4c1e-9a55-0d3e8f7b1c20"
	taskB = "9d4a7e21-0c3b-4f6a-8e19-5b2d7c4a9e03"
)

func validContext(tool, task, call string) *model.Context {
	return &model.Context{
		Present: true, Verdict: model.VerdictValid, CredentialPresent: true,
		Header: map[string]any{"alg": "HS256", "typ": "JWT"},
		Claims: map[string]any{
			"iss": "agentarea", "aud": "4e0f6a1c-instance", "iat": float64(t0.Unix()), "exp": float64(t0.Unix() + 300),
			"jti": "0b7e-jti", "tool": tool, "protocol": "1", "task_id": task, "tool_call_id": call,
			"workspace_id": "ws-1b2e", "idempotency_key": task + ":" + call,
		},
		Steps: []model.Step{
			{Name: "signature", Passed: true, Detail: "HS256 with secret 1 of 1"},
			{Name: "exp/iat", Passed: true, Detail: "expires in 5m"},
			{Name: "aud", Passed: true}, {Name: "iss", Passed: true},
			{Name: "tool", Passed: true}, {Name: "_meta = claims", Passed: true},
		},
	}
}

func metaFor(task, call string) map[string]any {
	return map[string]any{
		"progressToken": float64(3), "agentarea/protocol": "1", "agentarea/task_id": task,
		"agentarea/tool_call_id": call, "agentarea/workspace_id": "ws-1b2e",
		"agentarea/idempotency_key": task + ":" + call,
	}
}

// fixtureEvents is a session with calls in every state, seen by two feeds and
// a tap, including one whose result carries terminal escape sequences.
func fixtureEvents() []model.Event {
	var evs []model.Event
	add := func(e model.Event) { evs = append(evs, e) }
	feed := func(ms int, kind model.Kind, task, call, tool string) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: kind,
			TaskID: task, ToolCallID: call, Tool: tool}
	}
	tap := func(ms int, kind model.Kind, exch, task, call, tool string) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "local:7070", Kind: kind,
			TaskID: task, ToolCallID: call, Tool: tool, Exchange: exch, RequestID: "3"}
	}
	add(model.Event{Time: at(0), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: model.KindSourceStatus, State: model.StateConnected})
	add(model.Event{Time: at(0), Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindSourceStatus, State: model.StateConnected})
	add(model.Event{Time: at(100), Source: model.SourceFeed, SourceName: "task-9d4a", Kind: model.KindSourceStatus, State: model.StateReconnecting, Detail: "EOF"})
	add(model.Event{Time: at(2100), Source: model.SourceFeed, SourceName: "task-9d4a", Kind: model.KindSourceStatus, State: model.StateReconnecting, Detail: "EOF"})

	// 1. get_order: tap and feed, valid token, 23 sent, 9 relayed, ok with structured content.
	c := tap(1000, model.KindToolCall, "e1", taskA, "call_abc", "get_order")
	c.Arguments = json.RawMessage(`{"orderId":"A-17","include":["lines","totals"]}`)
	c.Meta = metaFor(taskA, "call_abc")
	c.Context = validContext("get_order", taskA, "call_abc")
	c.TimeoutMS = 300000
	c.Headers = map[string]string{"Authorization": "Bearer sk-live-secret", "Content-Type": "application/json"}
	add(c)
	f := feed(1010, model.KindToolCall, taskA, "call_abc", "mcp__orders__get_order")
	f.EventID = "ev-1"
	add(f)
	for i := 1; i <= 23; i++ {
		p := tap(1000+i*150, model.KindToolProgress, "e1", taskA, "call_abc", "get_order")
		p.Progress, p.Total, p.Message = float64(i), fptr(23), fmt.Sprintf("Reading sheet %d of 23", i)
		p.Relayed = model.BoolRef(i%3 == 1 || i == 23)
		add(p)
		if p.IsRelayed() {
			q := feed(1000+i*150+20, model.KindToolProgress, taskA, "call_abc", "mcp__orders__get_order")
			q.Progress, q.Total, q.Message, q.Relayed = p.Progress, p.Total, p.Message, model.BoolRef(true)
			q.EventID = fmt.Sprintf("ev-p%d", i)
			add(q)
		}
	}
	r := tap(4600, model.KindToolResult, "e1", taskA, "call_abc", "get_order")
	r.TextChars, r.TextPreview = 412, "Order A-17: 3 lines, total 129.00 EUR"
	r.StructuredContent = json.RawMessage(`{"order":{"id":"A-17","lines":3,"total":129.0,"currency":"EUR"}}`)
	r.StructuredContentBytes = len(r.StructuredContent)
	r.DurationMS, r.HTTPStatus = 3600, 200
	add(r)
	rf := feed(4620, model.KindToolResult, taskA, "call_abc", "mcp__orders__get_order")
	rf.EventID = "ev-r1"
	add(rf)

	// 2. export_sheet: running, 5 of 23, timeout known.
	c = tap(20000, model.KindToolCall, "e2", taskA, "call_def", "export_sheet")
	c.Context, c.Meta, c.TimeoutMS = validContext("export_sheet", taskA, "call_def"), metaFor(taskA, "call_def"), 300000
	add(c)
	for i := 1; i <= 5; i++ {
		p := tap(20000+i*400, model.KindToolProgress, "e2", taskA, "call_def", "export_sheet")
		p.Progress, p.Total, p.Message, p.Relayed = float64(i), fptr(23), fmt.Sprintf("Reading sheet %d of 23", i), model.BoolRef(true)
		add(p)
	}

	// 3. crawl_site: running, total unknown (spinner).
	c = feed(30000, model.KindToolCall, taskA, "call_ghi", "mcp__web__crawl_site")
	c.EventID = "ev-3"
	add(c)
	for i := 1; i <= 4; i++ {
		p := feed(30000+i*2000, model.KindToolProgress, taskA, "call_ghi", "mcp__web__crawl_site")
		p.Progress, p.Message, p.Relayed = float64(i*12), fmt.Sprintf("%d pages", i*12), model.BoolRef(true)
		p.EventID = fmt.Sprintf("ev-3p%d", i)
		add(p)
	}

	// 4. delete_user: token rejected 401 (expired), error.
	c = tap(35000, model.KindToolCall, "e4", taskB, "call_jkl", "delete_user")
	c.Meta = metaFor(taskB, "call_jkl")
	ctx := validContext("delete_user", taskB, "call_jkl")
	ctx.Verdict, ctx.HTTPStatus, ctx.RPCCode, ctx.Reason = model.VerdictRejected, 401, -32001, "token expired"
	ctx.Claims["exp"] = float64(t0.Unix() - 30)
	ctx.Steps[1] = model.Step{Name: "exp/iat", Passed: false, Detail: "expired 30s before the call (30 s skew allowed)"}
	ctx.Steps = ctx.Steps[:2]
	c.Context = ctx
	add(c)
	r = tap(35040, model.KindToolResult, "e4", taskB, "call_jkl", "delete_user")
	r.HTTPStatus, r.RPCCode, r.Error, r.IsError = 401, -32001, "context token expired", true
	add(r)

	// 5. long_report: cancelled.
	c = feed(38000, model.KindToolCall, taskB, "call_mno", "mcp__docs__long_report")
	c.EventID = "ev-5"
	add(c)
	x := feed(45000, model.KindToolCancelled, taskB, "call_mno", "mcp__docs__long_report")
	x.Reason, x.EventID = "user stopped the task", "ev-5x"
	add(x)

	// 6. slow_query: late (result after the timeout).
	c = tap(40000, model.KindToolCall, "e6", taskB, "call_pqr", "slow_query")
	c.TimeoutMS, c.Context, c.Meta = 10000, validContext("slow_query", taskB, "call_pqr"), metaFor(taskB, "call_pqr")
	add(c)
	r = tap(52000, model.KindToolResult, "e6", taskB, "call_pqr", "slow_query")
	r.Late, r.TextChars, r.DurationMS = true, 80, 12000
	add(r)

	// 7. charge_card: attempt 2, replayed.
	c = tap(44000, model.KindToolCall, "e7", taskB, "call_stu", "charge_card")
	c.IdempotencyKey, c.Context, c.Meta = taskB+":call_stu", validContext("charge_card", taskB, "call_stu"), metaFor(taskB, "call_stu")
	add(c)
	x = tap(46000, model.KindToolCancelled, "e7", taskB, "call_stu", "charge_card")
	x.Reason = "connection reset"
	add(x)
	c = tap(47000, model.KindToolCall, "e8", taskB, "call_stu", "charge_card")
	c.IdempotencyKey, c.Attempt, c.Context = taskB+":call_stu", 2, validContext("charge_card", taskB, "call_stu")
	add(c)
	r = tap(47300, model.KindToolResult, "e8", taskB, "call_stu", "charge_card")
	r.Attempt, r.Replayed, r.TextChars = 2, true, 31
	r.TextPreview = "charged 129.00 EUR (ch_3Pq)"
	add(r)

	// 8. render_chart: images (one over the limit), structured dropped, offloaded.
	c = feed(50000, model.KindToolCall, taskA, "call_vwx", "mcp__charts__render_chart")
	c.EventID = "ev-8"
	add(c)
	r = feed(53000, model.KindToolResult, taskA, "call_vwx", "mcp__charts__render_chart")
	r.EventID = "ev-8r"
	r.Images = []model.Image{{ID: "img_1", MimeType: "image/png", Size: 182000}, {ID: "img_2", MimeType: "image/png", Size: 6200000, Problem: "over 5 MB"}}
	r.StructuredContentBytes, r.StructuredContentDropped = 24100, true
	r.TextChars, r.Offloaded = 12000, true
	add(r)
	w := feed(53000, model.KindWarning, taskA, "call_vwx", "mcp__charts__render_chart")
	w.Code, w.Message = "image_too_large", "img_2 is 6.2 MB, over the 5 MB limit"
	add(w)

	// 9. lookup_customer: SOAT context with PII, unverified token.
	c = tap(55000, model.KindToolCall, "e9", "", "", "lookup_customer")
	c.Context = &model.Context{Present: true, Verdict: model.VerdictUnverified, Header: map[string]any{"alg": "HS256", "typ": "JWT"},
		Claims: map[string]any{"iss": "agentarea", "iat": float64(t0.Unix() + 50), "exp": float64(t0.Unix() + 350)}}
	c.SoatContext = map[string]string{"session_id": "sess_01", "actor_id": "actor_01", "actor_external_id": "+5511999999999", "locale": "pt-BR"}
	add(c)
	w = tap(55000, model.KindWarning, "e9", "", "", "lookup_customer")
	w.Code, w.Message = "pii_in_context", "actor_external_id looks like a phone number"
	add(w)
	r = tap(55800, model.KindToolResult, "e9", "", "", "lookup_customer")
	r.TextChars, r.TextPreview = 40, "customer found"
	add(r)

	// 10. fetch_page: its output tries to drive the terminal.
	c = tap(58000, model.KindToolCall, "e10", taskA, "call_esc", "fetch_\x1b[31mpage")
	c.Arguments = json.RawMessage(`{"url":"http://example.test/\u001b[2J"}`)
	add(c)
	p := tap(58500, model.KindToolProgress, "e10", taskA, "call_esc", "fetch_\x1b[31mpage")
	p.Progress, p.Total, p.Message, p.Relayed = 1, fptr(2), "got \x1b[2J half", model.BoolRef(true)
	add(p)
	r = tap(59000, model.KindToolResult, "e10", taskA, "call_esc", "fetch_\x1b[31mpage")
	r.TextChars, r.TextPreview = 64, "before \x1b]52;c;ZXZpbA==\x07 middle \x1b[2J after"
	r.StructuredContent = json.RawMessage(`{"note":"\u001b]52;c;ZXZpbA==\u0007"}`)
	add(r)
	return evs
}

func fixtureStore() *model.Store {
	s := model.NewStore(model.Options{})
	for _, e := range fixtureEvents() {
		s.Apply(model.RedactEvent(e)) // as the hub applies them: redacted
	}
	return s
}
