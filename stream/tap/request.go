package tap

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	warnings []decoder.Warning // about the exchange, not a call
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
	if ex.method != http.MethodPost {
		pr.plain = append(pr.plain, &plainMsg{eventType: httpEventType(ex.method)})
		return pr
	}
	if !ex.bodyWhole {
		why := ex.bodySkip
		if why == "" {
			why = "request body over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (or unreadable)"
		}
		pr.warnings = append(pr.warnings, decoder.Warning{Code: "parse_skipped",
			Message: why + ": forwarded unchanged, not parsed"})
		if t.cfg.Enforce {
			// The contract gives no answer for a body too large to read, so
			// the request passes; the user must know it was not checked.
			pr.warnings = append(pr.warnings, decoder.Warning{Code: "enforce_unverified_large_body",
				Message: "--enforce did not verify this request: its body is over " + strconv.FormatInt(t.cfg.MaxParseBytes, 10) + " bytes (--max-parse-bytes); forwarded unverified"})
		}
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
		return pr
	}
	msgs, batch, err := decoder.ParseMessages(ex.body)
	if err != nil {
		pr.warnings = append(pr.warnings, decoder.Warning{Code: "malformed_request", Message: "request body is not JSON-RPC (" + err.Error() + "): forwarded unchanged"})
		pr.plain = append(pr.plain, &plainMsg{eventType: "mcp.unparsed"})
		return pr
	}
	pr.msgs, pr.batch = msgs, batch
	headers := t.headerMap(ex.header)
	for _, m := range msgs {
		switch {
		case m.Kind == decoder.KindRequest && m.Method == decoder.MethodToolsCall:
			pr.calls = append(pr.calls, t.newCall(ex, m, batch, len(pr.calls), headers))
		case m.Kind == decoder.KindInvalid:
			pr.warnings = append(pr.warnings, decoder.Warning{Code: "malformed_request", Message: "invalid JSON-RPC message: " + m.Problem})
		default:
			p := newPlainMsg(m)
			pr.plain = append(pr.plain, p)
			if m.Kind == decoder.KindNotification && m.Method == "notifications/cancelled" {
				pr.cancels = append(pr.cancels, parseCancel(p, m.Params))
			}
		}
	}
	t.checkHeaders(ex, pr)
	if batch && len(pr.calls) > 0 {
		if _, _, reason, reject := decoder.BatchRejection(msgs); reject {
			for _, c := range pr.calls {
				c.pending = append(c.pending, decoder.Warning{Code: "tools_call_in_batch", Message: reason})
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
		tool, meta = pr.calls[0].tool, pr.calls[0].meta
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
	bag, soatWarnings := decoder.SoatContext(ex.header, t.cfg.SoatPrefix)
	c.pending = append(c.pending, soatWarnings...)
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
		start:      ex.start,
		meta:       meta,
	}
	if n > 0 {
		c.exchangeID = ex.id + "." + strconv.Itoa(n+1)
	}
	if perr != nil {
		c.pending = append(c.pending, decoder.Warning{Code: "malformed_call", Message: "tools/call params: " + perr.Error()})
	}
	credential := t.cfg.credentialHeader()
	vctx, vws := decoder.Verify(decoder.VerifyInput{
		Token:             ex.header.Get(decoder.ContextHeader),
		Secrets:           t.cfg.Secrets,
		InstanceID:        t.cfg.InstanceID,
		ToolName:          cp.Name,
		Meta:              cp.Meta,
		CredentialPresent: ex.header.Get(credential) != "",
		RequireCredential: t.cfg.CredentialHeader != "",
		InBatch:           batch,
		Now:               ex.start,
	})
	c.pending = append(c.pending, vws...)
	ev := c.event(model.KindToolCall, ex.start)
	ev.Arguments = cp.Arguments
	if len(meta.AgentArea) > 0 {
		ev.Meta = meta.AgentArea
	}
	ev.Context = &vctx
	if t.cfg.InstanceName != "" && cp.Name != "" {
		ev.AgentName = decoder.QualifiedName(t.cfg.InstanceName, cp.Name)
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
		c.startTimer()
	}
	now := time.Now()
	for _, cm := range pr.cancels {
		target := ex.t.calls.latestByID(decoder.IDKey(cm.requestID))
		if target == nil {
			cm.plain.note("matched", false)
			continue
		}
		reason := cm.reason
		if reason == "" {
			reason = "notifications/cancelled"
		}
		target.onCancel(now, reason)
		cm.plain.silent = true // the call's tool.cancelled says it all
	}
}

// headerMap is the request's headers as recorded: values joined, secrets
// redacted (the configured credential header too).
func (t *Tap) headerMap(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if t.cfg.CredentialHeader != "" && k == t.cfg.CredentialHeader {
			out[k] = model.RedactHeader("Authorization", v)
		} else {
			out[k] = model.RedactHeader(k, v)
		}
	}
	return out
}
