package decoder

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/soat"
	"toolscope/decoder/token"
	"toolscope/model"
)

// Judge judges requests against the contracts, as one function over what
// jsonrpc.Read read: the token's steps and verdict, _meta against the
// claims, the keys and claims AgentArea always sends, tool names, sessions,
// batches, MCP and SOAT headers, what servers could read differently, and
// the rules across calls (retries, token reuse, end users). One Judge
// serves a tap (HTTP and stdio alike); `decode --call` judges its one call
// with a Judge of its own. Safe for concurrent use.
type Judge struct {
	Secrets    [][]byte
	InstanceID string // the aud a token must name ("": not compared)
	// CredentialHeader is the static credential's header when one is
	// required (--credential-header); Authorization is always a credential
	// header for the rule that a credential is never the context secret.
	CredentialHeader string
	SoatPrefix       string // "": soat.DefaultPrefix
	// Enforce: an ambiguous request is refused, not forwarded (its warning
	// says so).
	Enforce bool
	// RelayInterval is the platform's relay rate a feed is held to (0:
	// RelayInterval; the demo runs its clock faster).
	RelayInterval time.Duration

	cross crossIndex
	mu    sync.Mutex // guards gaps
	gaps  relayGaps
}

// Request is one request body and what came with it.
type Request struct {
	Body jsonrpc.Body
	// Method is the HTTP method ("" over stdio); a request by another
	// method than POST has no body the judgment reads.
	Method string
	// Header is the request's header as the tap received it, nil over
	// stdio: then a token comes in _meta (jsonrpc.MetaContextToken) and
	// no header rule applies.
	Header http.Header
	// SoatHeader holds the SOAT fields with their names as they arrived,
	// SoatOrder those names in order (nil: read from Header, whose names
	// net/http made canonical).
	SoatHeader http.Header
	SoatOrder  []string
	// Exchange names the request in the rules across calls ("12"; a batch's
	// second call is "12.2").
	Exchange string
	Now      time.Time
}

// Judgment is what the contracts say of one request.
type Judgment struct {
	Calls []CallJudgment // one per tools/call request, in the body's order
	// Warnings are about the request, not a call (context on tools/list).
	Warnings []model.Warning
	// Strict is why servers could read the request differently (the body,
	// or a header: Content-Encoding, a charset, two tokens), nil when
	// every server reads it alike. --enforce refuses such a request.
	Strict *jsonrpc.Ambiguity
}

// CallJudgment is what the contracts say of one tools/call.
type CallJudgment struct {
	Message  *jsonrpc.Message
	Exchange string
	// Context is the token's verdict, steps and claims.
	Context  model.Context
	Warnings []model.Warning
	// Soat is the SOAT context bag the call came with, keys as received.
	Soat map[string]string
}

// Request judges one request.
func (j *Judge) Request(r Request) Judgment {
	var out Judgment
	out.Strict = j.strict(r)
	body := r.Body
	if body.Err != nil {
		return out
	}
	for i := range body.Messages {
		if m := &body.Messages[i]; m.IsCall() {
			out.Calls = append(out.Calls, j.call(r, m, len(out.Calls)))
		}
	}
	if len(out.Calls) == 0 {
		out.Warnings = append(out.Warnings, j.contextOnOtherMethods(r)...)
	}
	j.headerRules(r, &out)
	if body.Batch {
		for i := range out.Calls {
			out.Calls[i].warn(model.WarnToolsCallInBatch, "tools/call inside a JSON-RPC batch")
		}
	}
	if a := out.Strict; a != nil && a.RPCCode != jsonrpc.CodeParseError {
		// A body that is not JSON already has its malformed_request.
		w := j.Ambiguous(a)
		if len(out.Calls) == 0 {
			out.Warnings = append(out.Warnings, w)
		}
		for i := range out.Calls {
			out.Calls[i].Warnings = append(out.Calls[i].Warnings, w)
		}
	}
	return out
}

// Ambiguous is the ambiguous_json warning of a request servers can read
// differently.
func (j *Judge) Ambiguous(a *jsonrpc.Ambiguity) model.Warning {
	msg := "servers can read this request differently: " + a.Reason
	if j.Enforce {
		msg += "; refused (--enforce)"
	} else {
		msg += "; what is shown may not be what the server ran"
	}
	return model.Warning{Code: model.WarnAmbiguousJSON, Message: msg}
}

// Prefix is the SOAT header prefix the judge reads.
func (j *Judge) Prefix() string {
	if j.SoatPrefix == "" {
		return soat.DefaultPrefix
	}
	return j.SoatPrefix
}

func (c *CallJudgment) warn(code model.WarningCode, msg string) {
	c.Warnings = append(c.Warnings, model.Warning{Code: code, Message: msg})
}

// call judges the n-th tools/call of a request.
func (j *Judge) call(r Request, m *jsonrpc.Message, n int) CallJudgment {
	c := CallJudgment{Message: m, Exchange: r.Exchange}
	if n > 0 {
		c.Exchange += "." + strconv.Itoa(n+1)
	}
	if problem := m.Call.Problem + m.Meta.Problem; problem != "" {
		c.warn(model.WarnMalformedCall, "tools/call params: "+problem)
	}
	sent := j.received(r, m, &c)
	ctx, ws := token.Verify(token.Input{
		Token:             sent.token,
		Secrets:           j.Secrets,
		InstanceID:        j.InstanceID,
		ToolName:          m.Call.Name,
		Meta:              m.Meta.AgentArea,
		CredentialPresent: sent.credential,
		RequireCredential: j.CredentialHeader != "" && r.Header != nil,
		InBatch:           r.Body.Batch,
		Now:               r.Now,
		ParamsProblem:     m.Call.Problem,
		MetaProblem:       m.Meta.Problem,
	})
	c.Context = ctx
	c.Warnings = append(c.Warnings, ws...)
	c.Warnings = append(c.Warnings, callRules(callRulesInput{ToolName: m.Call.Name, Meta: m.Meta.AgentArea,
		ProgressToken: m.Meta.ProgressToken != nil, TokenPresent: sent.tokenSent, Claims: ctx.Claims,
		SessionID: headerValue(r.Header, "Mcp-Session-Id")})...)
	c.Warnings = append(c.Warnings, j.cross.check(crossCall{what: "exchange", id: c.Exchange, idemKey: m.Meta.IdempotencyKey(),
		arguments: m.Call.Arguments, claims: ctx.Claims, meta: m.Meta.AgentArea, taskID: m.Meta.TaskID()})...)
	return c
}

// contextOnOtherMethods warns of AgentArea context (the token, or
// agentarea/* keys in _meta) on a request that holds no tools/call.
func (j *Judge) contextOnOtherMethods(r Request) []model.Warning {
	token := contextToken(r.Header) != ""
	if r.Method != "" && r.Method != http.MethodPost {
		if why := ContextOnOtherMethod(r.Method, token, nil); why != "" {
			return []model.Warning{{Code: model.WarnContextOnOtherMethod, Message: why}}
		}
		return nil
	}
	for _, m := range r.Body.Messages {
		if m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindNotification {
			continue
		}
		if why := ContextOnOtherMethod(m.Method, token, m.Meta.AgentArea); why != "" {
			return []model.Warning{{Code: model.WarnContextOnOtherMethod, Message: why}}
		}
	}
	return nil
}

// headerRules compare the MCP headers with the body's one message, and read
// the SOAT context bag; findings go to the first call, or to the request.
func (j *Judge) headerRules(r Request, out *Judgment) {
	msgs := r.Body.Messages
	if r.Header == nil || len(msgs) == 0 || r.Body.Batch {
		return
	}
	m := &msgs[0]
	ws := CheckMCPHeaders(r.Header, m.Method, m.Call.Name, m.Meta.ProtocolVersion)
	if len(out.Calls) == 0 {
		out.Warnings = append(out.Warnings, ws...)
		return
	}
	first := &out.Calls[0]
	first.Warnings = append(first.Warnings, ws...)
	bag, soatWarnings := j.soat(r)
	first.Warnings = append(first.Warnings, soatWarnings...)
	if len(bag.Values) > 0 {
		for i := range out.Calls {
			out.Calls[i].Soat = bag.Values
		}
	}
}
