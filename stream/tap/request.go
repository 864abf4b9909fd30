package tap

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"toolscope/decoder"
	"toolscope/model"
)

// parsedRequest is what the tap read of one request body.
type parsedRequest struct {
	msgs     []decoder.Message
	batch    bool
	calls    []*call
	plain    []*plainMsg
	cancels  []cancelMsg
	warnings []decoder.Warning  // about the exchange, not a call
	strict   *decoder.Ambiguity // why servers could read it differently (see readStrictly)
	// read: ParseMessages read the body as it came (no lenient cut), so
	// its syntax is checked and the strict check need not check it again.
	read bool
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
		if p.kind == decoder.KindRequest && decoder.IDKey(p.id) == key {
			return p
		}
	}
	return nil
}

// parseRequest reads the request body and prepares, without emitting, the
// events it causes. With --enforce it runs before the request is forwarded.
func (t *Tap) parseRequest(ex *exchange) *parsedRequest {
	pr := &parsedRequest{}
	defer t.readStrictly(ex, pr)
	if ex.method != http.MethodPost {
		pr.plain = append(pr.plain, &plainMsg{eventType: httpEventType(ex.method)})
		if why := decoder.ContextOnOtherMethod(ex.method, contextToken(ex.header) != "", nil); why != "" {
			pr.warnings = append(pr.warnings, decoder.Warning{Code: model.WarnContextOnOtherMethod, Message: why})
		}
		return pr
	}
	if !ex.bodyWhole {
		why := ex.bodySkip
		if why == "" {
			why = "request body over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (or unreadable)"
		}
		pr.warnings = append(pr.warnings, decoder.Warning{Code: model.WarnParseSkipped,
			Message: why + ": forwarded unchanged, not parsed"})
		if t.cfg.Enforce {
			// What the tap cannot read it cannot verify: strictAnswer refuses it.
			pr.warnings = append(pr.warnings, decoder.Warning{Code: model.WarnEnforceUnverifiedLargeBody,
				Message: "--enforce cannot verify this request: its body is over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (--max-parse-bytes); answered 413, not forwarded"})
		}
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
		return pr
	}
	msgs, batch, err := decoder.ParseMessages(ex.body)
	if pr.read = err == nil; !pr.read {
		msgs, batch, err = parseLeniently(ex.body, err)
	}
	if err != nil {
		pr.warnings = append(pr.warnings, decoder.Warning{Code: model.WarnMalformedRequest, Message: "request body is not JSON-RPC (" + err.Error() + "): forwarded unchanged"})
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
		return pr
	}
	pr.msgs, pr.batch = msgs, batch
	var headers map[string]string // recorded on tool.call events only
	for _, m := range msgs {
		switch {
		case m.Kind == decoder.KindRequest && m.Method == decoder.MethodToolsCall:
			if headers == nil {
				headers = t.headerMap(ex.header)
			}
			if pr.calls == nil {
				pr.calls = pr.one[:0]
			}
			pr.calls = append(pr.calls, t.newCall(ex, m, batch, len(pr.calls), headers))
		case m.Kind == decoder.KindInvalid:
			pr.warnings = append(pr.warnings, decoder.Warning{Code: model.WarnMalformedRequest, Message: "invalid JSON-RPC message: " + m.Problem})
		default:
			p := newPlainMsg(m)
			pr.plain = append(pr.plain, p)
			if m.Kind == decoder.KindNotification && m.Method == "notifications/cancelled" {
				pr.cancels = append(pr.cancels, parseCancel(p, m.Params))
			}
		}
	}
	t.checkHeaders(ex, pr)
	if len(pr.calls) == 0 {
		pr.warnings = append(pr.warnings, contextOnOtherMethods(ex, msgs)...)
	}
	if batch && len(pr.calls) > 0 {
		if _, _, reason, reject := decoder.BatchRejection(msgs); reject {
			for _, c := range pr.calls {
				c.pending = append(c.pending, decoder.Warning{Code: model.WarnToolsCallInBatch, Message: reason})
			}
		}
	}
	return pr
}

// checkHeaders compares the MCP headers with the body and reads the SOAT
// context bag; findings go to the first call, or to the exchange.
func (t *Tap) checkHeaders(ex *exchange, pr *parsedRequest) {
	if len(pr.msgs) == 0 || pr.batch {
		return
	}
	m := pr.msgs[0]
	var tool string
	var meta decoder.MetaInfo
	if len(pr.calls) > 0 {
		tool, meta = pr.calls[0].tool, decoder.MetaInfo{ProtocolVersion: pr.calls[0].meta.protocolVersion}
	} else if len(m.Params) > 0 {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			meta = decoder.ExtractMeta(p.Meta)
		}
	}
	ws := decoder.CheckMCPHeaders(ex.header, m.Method, tool, meta)
	if len(pr.calls) == 0 {
		pr.warnings = append(pr.warnings, ws...)
		return
	}
	c := pr.calls[0]
	c.pending = append(c.pending, ws...)
	var bag decoder.SoatBag
	var soatWarnings []decoder.Warning
	if raw := ex.rawHeader; raw != nil { // SOAT keys are the header names verbatim
		prefix := t.cfg.SoatPrefix
		if prefix == "" {
			prefix = decoder.DefaultSoatPrefix
		}
		h, order := raw.soatHeader(prefix)
		bag, soatWarnings = decoder.SoatContextOrdered(h, order, t.cfg.SoatPrefix)
	} else {
		bag, soatWarnings = decoder.SoatContext(ex.header, t.cfg.SoatPrefix)
	}
	c.pending = append(c.pending, soatWarnings...)
	c.pending = append(c.pending, dropStrippedSoat(bag, ex.header, t.cfg.SoatPrefix)...)
	if len(bag.Values) > 0 {
		for _, o := range pr.calls {
			o.callEv.SoatContext = bag.Values
		}
	}
}

// newCall prepares the tool.call event of one tools/call, with its context
// token decoded and, given a secret, verified.
func (t *Tap) newCall(ex *exchange, m decoder.Message, batch bool, n int, headers map[string]string) *call {
	cp, perr := decoder.ParseCallParams(m.Params)
	meta := decoder.ExtractMeta(cp.Meta)
	c := &call{
		t:          t,
		exchangeID: ex.id,
		requestID:  string(m.ID),
		idKey:      decoder.IDKey(m.ID),
		tokenKey:   decoder.IDKey(meta.ProgressToken),
		tool:       cp.Name,
		taskID:     meta.TaskID,
		toolCallID: meta.ToolCallID,
		idemKey:    meta.IdempotencyKey,
		scope:      ex.scope,
		start:      ex.start,
		meta:       callMeta{agentArea: meta.AgentArea, progressToken: meta.ProgressToken, protocolVersion: meta.ProtocolVersion},
	}
	if n > 0 {
		c.exchangeID = ex.id + "." + strconv.Itoa(n+1)
	}
	if perr != nil {
		c.pending = append(c.pending, decoder.Warning{Code: model.WarnMalformedCall, Message: "tools/call params: " + perr.Error()})
	}
	credential := t.cfg.credentialHeader()
	// The token and credential are judged as the server receives them: the
	// proxy drops the headers a client names in Connection.
	token, credentialPresent := contextToken(ex.header), ex.header.Get(credential) != ""
	if token != "" && hopByHop(ex.header, canonicalContextHeader) {
		token = ""
		c.pending = append(c.pending, decoder.Warning{Code: model.WarnContextHeaderStripped, Message: "the client lists " +
			decoder.ContextHeader + " in Connection, so the proxy removes it as hop-by-hop: the server never receives the token and the verdict is what it sees"})
	}
	if credentialPresent && hopByHop(ex.header, credential) {
		credentialPresent = false
		c.pending = append(c.pending, decoder.Warning{Code: model.WarnCredentialHeaderStripped, Message: "the client lists " +
			credential + " in Connection, so the proxy removes it as hop-by-hop: the server never receives the static credential"})
	}
	paramsProblem, metaProblem := splitParamsError(perr)
	vctx, vws := decoder.Verify(decoder.VerifyInput{
		Token:             token,
		Secrets:           t.cfg.Secrets,
		InstanceID:        t.cfg.InstanceID,
		ToolName:          cp.Name,
		Meta:              cp.Meta,
		CredentialPresent: credentialPresent,
		RequireCredential: t.cfg.CredentialHeader != "",
		InBatch:           batch,
		Now:               ex.start,
		ParamsProblem:     paramsProblem,
		MetaProblem:       metaProblem,
	})
	c.pending = append(c.pending, vws...)
	c.pending = append(c.pending, decoder.CallRuleWarnings(decoder.CallRulesInput{ToolName: cp.Name, Meta: cp.Meta,
		TokenPresent: contextToken(ex.header) != "", Claims: vctx.Claims, SessionID: ex.header.Get("Mcp-Session-Id")})...)
	c.pending = append(c.pending, t.cross.check(crossCall{exchange: c.exchangeID, idemKey: meta.IdempotencyKey,
		arguments: cp.Arguments, claims: vctx.Claims, meta: cp.Meta, taskID: meta.TaskID})...)
	ev := c.event(model.KindToolCall, ex.start)
	ev.Arguments = cp.Arguments
	if len(meta.AgentArea) > 0 {
		ev.Meta = meta.AgentArea
	}
	ev.Context = &vctx
	ev.TraceParent, ev.TraceState = meta.Trace["traceparent"], meta.Trace["tracestate"]
	if t.cfg.InstanceName != "" && cp.Name != "" {
		ev.AgentName = t.names.name(t.cfg.InstanceName, cp.Name)
	}
	ev.TimeoutMS = t.cfg.Timeout.Milliseconds()
	ev.Headers = headers
	c.callEv = ev
	return c
}

func parseCancel(p *plainMsg, params json.RawMessage) cancelMsg {
	var v struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	json.Unmarshal(params, &v)
	return cancelMsg{plain: p, requestID: v.RequestID, reason: v.Reason}
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
		key := decoder.IDKey(cm.requestID)
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

var canonicalContextHeader = textproto.CanonicalMIMEHeaderKey(decoder.ContextHeader)

// contextToken is h.Get(decoder.ContextHeader) without canonicalising the
// name on every call (X-AgentArea-Context is not canonical: each Get built
// a new string).
func contextToken(h http.Header) string {
	if vs := h[canonicalContextHeader]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// hopByHop says whether the proxy removes the request header name
// (canonical) before the upstream: a standard hop-by-hop header, or one the
// Connection header names. It builds nothing: it runs for every call.
func hopByHop(h http.Header, name string) bool {
	switch name {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	for _, v := range h["Connection"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			if part = textproto.TrimString(part); part != "" && textproto.CanonicalMIMEHeaderKey(part) == name {
				return true
			}
		}
	}
	return false
}

// contextOnOtherMethods warns of AgentArea context (the token, or
// agentarea/* keys in _meta) on a request that holds no tools/call.
func contextOnOtherMethods(ex *exchange, msgs []decoder.Message) []decoder.Warning {
	token := contextToken(ex.header) != ""
	for _, m := range msgs {
		if m.Kind != decoder.KindRequest && m.Kind != decoder.KindNotification {
			continue
		}
		var meta map[string]any
		if bytes.Contains(m.Params, []byte(decoder.AgentAreaPrefix)) {
			var p struct {
				Meta map[string]any `json:"_meta"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				meta = p.Meta
			}
		}
		if why := decoder.ContextOnOtherMethod(m.Method, token, meta); why != "" {
			return []decoder.Warning{{Code: model.WarnContextOnOtherMethod, Message: why}}
		}
	}
	return nil
}

// dropStrippedSoat removes from the bag the context headers the client
// names in Connection: the proxy removes them, the server never sees them.
func dropStrippedSoat(bag decoder.SoatBag, h http.Header, prefix string) []decoder.Warning {
	if len(bag.Values) == 0 || len(h["Connection"]) == 0 {
		return nil
	}
	if prefix == "" {
		prefix = decoder.DefaultSoatPrefix
	}
	var ws []decoder.Warning
	for key := range bag.Values {
		if hopByHop(h, textproto.CanonicalMIMEHeaderKey(prefix+key)) {
			delete(bag.Values, key)
			delete(bag.Identity, key)
			ws = append(ws, decoder.Warning{Code: model.WarnContextHeaderStripped, Message: "the client lists " + strconv.Quote(prefix+key) +
				" in Connection, so the proxy removes it as hop-by-hop: the server never receives this SOAT key"})
		}
	}
	return ws
}
