package tap

import (
	"encoding/json"
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
	plain     *plainMsg
	requestID json.RawMessage
	reason    string
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
		if p.kind == jsonrpc.KindRequest && jsonrpc.IDKey(p.id) == key {
			return p
		}
	}
	return nil
}

// newJudge is the judge of a tap's requests, configured as the tap is.
func newJudge(cfg Config) *decoder.Judge {
	return &decoder.Judge{Secrets: cfg.Secrets, InstanceID: cfg.InstanceID, CredentialHeader: cfg.CredentialHeader,
		SoatPrefix: cfg.SoatPrefix, Enforce: cfg.Enforce}
}

// parseRequest reads the request body once, has the tap's judge judge it,
// and prepares, without emitting, the events it causes. With --enforce it
// runs before the request is forwarded.
func (t *Tap) parseRequest(ex *exchange) *parsedRequest {
	req := decoder.Request{Header: ex.header, Method: ex.method, Exchange: ex.id, Now: ex.start}
	switch {
	case ex.method != http.MethodPost:
		pr := t.sortRequest(ex, req, nil)
		pr.plain = append(pr.plain, &plainMsg{eventType: httpEventType(ex.method)})
		if len(ex.body) > 0 {
			// MCP sends calls only by POST and the tap reads only POST bodies;
			// a server that reads any method's body would run what it did not see.
			pr.strict = &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
				Reason: "a " + strconv.Quote(model.Clip(ex.method, 20)) + " request with a body, which the tap reads only on POST"}
			pr.warnings = append(pr.warnings, t.judge.Ambiguous(pr.strict))
		}
		return pr
	case !ex.bodyWhole:
		pr := t.sortRequest(ex, req, nil)
		why := ex.bodySkip
		if why == "" {
			why = "request body over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (or unreadable)"
		}
		pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnParseSkipped,
			Message: why + ": forwarded unchanged, not parsed"})
		if t.cfg.Enforce {
			// What the tap cannot read it cannot verify: strictAnswer refuses it.
			pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnEnforceUnverifiedLargeBody,
				Message: "--enforce cannot verify this request: its body is over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (--max-parse-bytes); answered 413, not forwarded"})
		}
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
		return pr
	}
	req.Body = jsonrpc.Read(ex.body)
	if raw := ex.rawHeader; raw != nil { // SOAT keys are the header names verbatim
		req.SoatHeader, req.SoatOrder = raw.soatHeader(t.judge.Prefix())
	}
	var headers map[string]string // recorded on tool.call events only
	return t.sortRequest(ex, req, func() map[string]string {
		if headers == nil {
			headers = t.headerMap(ex.header)
		}
		return headers
	})
}

// sortRequest judges a request read and sorts its messages: calls (their
// tool.call events prepared), other messages, cancellations, warnings. The
// HTTP and the stdio tap read a client's messages alike through it; headers
// gives the headers a tool.call records (nil: none).
func (t *Tap) sortRequest(ex *exchange, req decoder.Request, headers func() map[string]string) *parsedRequest {
	pr := &parsedRequest{body: req.Body}
	judged := t.judge.Request(req)
	pr.strict = judged.Strict
	if err := req.Body.Err; err != nil {
		pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnMalformedRequest, Message: "request body is not JSON-RPC (" + err.Error() + "): forwarded unchanged"})
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
	}
	for i := range req.Body.Messages {
		switch m := &req.Body.Messages[i]; {
		case m.IsCall():
		case m.Kind == jsonrpc.KindInvalid:
			pr.warnings = append(pr.warnings, model.Warning{Code: model.WarnMalformedRequest, Message: "invalid JSON-RPC message: " + m.Problem})
		default:
			p := newPlainMsg(m)
			pr.plain = append(pr.plain, p)
			if m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodCancelled {
				pr.cancels = append(pr.cancels, cancelMsg{plain: p, requestID: m.Cancel.RequestID, reason: m.Cancel.Reason})
			}
		}
	}
	if len(judged.Calls) > 0 {
		pr.calls = pr.one[:0]
	}
	for i := range judged.Calls {
		var h map[string]string
		if headers != nil {
			h = headers()
		}
		pr.calls = append(pr.calls, t.newCall(ex, &judged.Calls[i], h))
	}
	pr.warnings = append(pr.warnings, judged.Warnings...)
	return pr
}

// newCall prepares the tool.call event of one tools/call, as judged.
func (t *Tap) newCall(ex *exchange, cj *decoder.CallJudgment, headers map[string]string) *call {
	m := cj.Message
	c := &call{
		t:          t,
		msg:        m,
		exchangeID: cj.Exchange,
		requestID:  string(m.ID),
		idKey:      jsonrpc.IDKey(m.ID),
		tokenKey:   jsonrpc.IDKey(m.Meta.ProgressToken),
		tool:       m.Call.Name,
		taskID:     m.Meta.TaskID(),
		toolCallID: m.Meta.ToolCallID(),
		idemKey:    m.Meta.IdempotencyKey(),
		scope:      ex.scope,
		start:      ex.start,
		pending:    cj.Warnings,
	}
	ev := c.event(model.KindToolCall, ex.start)
	ev.Arguments = m.Call.Arguments
	if len(m.Meta.AgentArea) > 0 {
		ev.Meta = m.Meta.AgentArea
	}
	ev.Context = &cj.Context
	ev.SoatContext = cj.Soat
	ev.TraceParent, ev.TraceState = m.Meta.TraceParent, m.Meta.TraceState
	if t.cfg.InstanceName != "" && m.Call.Name != "" {
		ev.AgentName = decoder.QualifiedName(t.cfg.InstanceName, m.Call.Name)
	}
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
		key := jsonrpc.IDKey(cm.requestID)
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

// headerMap is the request's headers as recorded: values joined, secrets
// redacted (the configured credential header too).
func (t *Tap) headerMap(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		out[k] = t.redactor.Header(k, v)
	}
	return out
}
