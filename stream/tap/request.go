package tap

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// parsedRequest is what the tap read of one request body.
type parsedRequest struct {
	body     jsonrpc.Body // the body, read once
	calls    []*call
	plain    []*plainMsg
	cancels  []cancelMsg
	warnings []model.Warning    // about the exchange, not a call
	strict   *jsonrpc.Ambiguity // why servers could read it differently (see readStrictly)
	// one holds the calls of a request with one (nearly all of them), so
	// pr.calls is not a slice of its own.
	one [1]*call
}

// cancelMsg is a notifications/cancelled the client sent.
type cancelMsg struct {
	plain  *plainMsg
	key    string // of the request it cancels (jsonrpc.IDKey)
	reason string
}

// callsByID finds this request's call answered by a response id.
func (pr *parsedRequest) callByID(key string) *call {
	for _, c := range pr.calls {
		if c.idKey == key {
			return c
		}
	}
	return nil
}

func (pr *parsedRequest) callByToken(key string) *call {
	for _, c := range pr.calls {
		if c.tokenKey == key {
			return c
		}
	}
	if len(pr.calls) == 1 && key == "" {
		return pr.calls[0]
	}
	return nil
}

func (pr *parsedRequest) plainByID(key string) *plainMsg {
	for _, p := range pr.plain {
		if p.kind == jsonrpc.KindRequest && p.key == key {
			return p
		}
	}
	return nil
}

// sortRequest sorts a request as judged: its calls (their tool.call events
// prepared), other messages, cancellations, warnings. The HTTP and the
// stdio tap read a client's messages alike through it; overHTTP says the
// request came over HTTP (its tool.call events record its headers).
func (t *Tap) sortRequest(ex *exchange, judged decoder.Judgment, overHTTP bool) *parsedRequest {
	pr := &parsedRequest{body: judged.Body, strict: judged.Strict}
	if len(judged.Calls) > 0 {
		pr.calls = pr.one[:0]
	}
	var headers map[string]string // recorded on tool.call events only
	if overHTTP && len(judged.Calls) > 0 {
		headers = t.headerMap(ex.header)
	}
	for i := range judged.Calls {
		pr.calls = append(pr.calls, t.newCall(ex, &judged.Calls[i], headers, overHTTP))
	}
	switch {
	case overHTTP && ex.method != http.MethodPost:
		pr.plain = append(pr.plain, &plainMsg{eventType: httpEventType(ex.method)})
	case overHTTP && !ex.bodyWhole:
		why := cmp.Or(ex.bodySkip, "request body over "+strconv.FormatInt(t.cfg.MaxParseBytes, 10)+" bytes (or unreadable)")
		pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnParseSkipped, Message: why + ": forwarded unchanged, not parsed"})
		if t.cfg.Enforce {
			// What the tap cannot read it cannot verify: the judge answers 413.
			pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnEnforceUnverifiedLargeBody,
				Message: "--enforce cannot verify this request: its body is over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (--max-parse-bytes); answered 413, not forwarded"})
		}
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
	case judged.Body.Err != nil:
		pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnMalformedRequest, Message: "request body is not JSON-RPC (" + judged.Body.Err.Error() + "): forwarded unchanged"})
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
	}
	for i := range judged.Body.Messages {
		switch m := &judged.Body.Messages[i]; {
		case m.IsCall():
		case m.Kind == jsonrpc.KindInvalid:
			pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnMalformedRequest, Message: "invalid JSON-RPC message: " + m.Problem})
		default:
			p := newPlainMsg(m)
			pr.plain = append(pr.plain, p)
			if m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodCancelled {
				pr.cancels = append(pr.cancels, cancelMsg{plain: p, key: m.Cancel.Key, reason: m.Cancel.Reason})
			}
		}
	}
	pr.warnings = append(pr.warnings, judged.Warnings...)
	return pr
}

// newCall prepares the tool.call event of one tools/call, as judged. Only a
// call over HTTP with AgentArea context (a token or agentarea/* keys) is one
// the platform relays progress of.
func (t *Tap) newCall(ex *exchange, cj *decoder.CallJudgment, headers map[string]string, overHTTP bool) *call {
	m := cj.Message
	c := &call{
		t:          t,
		msg:        m,
		idKey:      m.Key,
		tokenKey:   m.Meta.TokenKey,
		tool:       m.Call.Name,
		taskID:     m.Meta.TaskID(),
		toolCallID: m.Meta.ToolCallID(),
		idemKey:    m.Meta.IdempotencyKey(),
		scope:      ex.scope,
		seq:        ex.seq,
		start:      ex.start,
		pending:    cj.Warnings,
		relays:     overHTTP && cj.AgentArea,
		agentArea:  cj.AgentArea,
	}
	c.callEv = model.Event{Exchange: cj.Exchange, RequestID: string(m.ID)}
	ev := c.event(model.KindToolCall, ex.start)
	ev.Arguments = m.Call.Arguments
	if len(m.Meta.AgentArea) > 0 {
		ev.Meta = m.Meta.AgentArea
	}
	if !cj.Plain { // plain MCP has no token to miss
		ev.Context = &cj.Context
	}
	ev.SoatContext = cj.Soat
	ev.TraceParent, ev.TraceState = m.Meta.TraceParent, m.Meta.TraceState
	ev.AgentName = cj.AgentName
	ev.TimeoutMS = t.cfg.Timeout.Milliseconds()
	ev.Headers = headers
	c.callEv = ev
	return c
}

// announce emits what the request said: calls (now in flight), warnings,
// and cancellations of calls on other exchanges.
func (ex *exchange) announce() {
	pr := ex.req
	for _, w := range pr.warnings {
		ex.warn(w.Code, w.Message)
	}
	for _, c := range pr.calls {
		ex.t.joinRound(c, ex.seq)
		ex.t.calls.add(c)
		ex.t.emit(c.callEv)
		c.warnAll(c.start, c.pending)
		c.pending = nil
		if !ex.over {
			c.startTimer() // else run arms it once the answer is read, if still open
		}
	}
	now := ex.start // when the notification reached the tap, not when it was parsed
	var held []heldWait
	for _, cm := range pr.cancels {
		reason := cm.reason
		if reason == "" {
			reason = "notifications/cancelled"
		}
		key := cm.key
		target, others := ex.t.calls.byIDIn(key, ex.scope)
		if target == nil {
			target = onlyGone(others) // its client closed its stream just before
		}
		switch {
		case target != nil:
			target.onCancel(now, reason)
			cm.plain.silent = true // the call's tool.cancelled says it all
		case len(others) > 1:
			h, gone := ex.t.calls.hold(key, reason, now, others)
			if gone != nil {
				gone.onCancel(now, reason)
				cm.plain.silent = true
				break
			}
			held = append(held, heldWait{cm.plain, h, len(others)})
		default:
			cm.plain.note("matched", false)
		}
	}
	if ex.pendingCancel {
		ex.pendingCancel = false
		ex.t.cancels.done()
	}
	for _, hw := range held {
		hw.h.await()
		if ex.t.calls.release(hw.h) {
			hw.plain.silent = true // a call claimed it
			continue
		}
		// Session-less calls on other connections share the id and none
		// closed its stream: cancelling one of them would be a guess.
		hw.plain.note("matched", false)
		hw.plain.note("ambiguous", hw.candidates)
	}
}

// heldWait is an ambiguous cancellation the exchange waits on.
type heldWait struct {
	plain      *plainMsg
	h          *heldCancel
	candidates int
}

// onlyGone is the one call among calls whose client has closed its stream
// (it is still in flight for cancelGrace), or nil.
func onlyGone(calls []*call) *call {
	var found *call
	for _, c := range calls {
		if c.gone.Load() {
			if found != nil {
				return nil
			}
			found = c
		}
	}
	return found
}

// headerMap is the request's headers as recorded: values joined. The hub
// redacts them (model.Redactor), and remembers the credentials among them
// to redact wherever they appear again.
func (t *Tap) headerMap(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}
