package decoder

import (
	"crypto/subtle"
	"net/textproto"
	"strconv"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
	"toolscope/model"
)

// call judges the n-th tools/call of a request.
func (j *Judge) call(r Request, inBatch bool, m *jsonrpc.Message, n int) CallJudgment {
	c := CallJudgment{Message: m, Exchange: r.Exchange}
	if j.InstanceName != "" && m.Call.Name != "" {
		c.AgentName = QualifiedName(j.InstanceName, m.Call.Name)
	}
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
		InBatch:           inBatch,
		Now:               r.Now,
		ParamsProblem:     m.Call.Problem,
		MetaProblem:       m.Meta.Problem,
	})
	c.Context = ctx
	c.AgentArea = sent.tokenSent || ctx.Present || len(m.Meta.AgentArea) > 0
	if c.AgentArea {
		j.contextSeen.Store(true)
	}
	c.Plain = !c.AgentArea && len(j.Secrets) == 0 && j.CredentialHeader == "" && !j.contextSeen.Load()
	c.Warnings = append(c.Warnings, ws...)
	c.Warnings = append(c.Warnings, callRules(callRulesInput{ToolName: m.Call.Name, Meta: m.Meta.AgentArea,
		ProgressToken: m.Meta.ProgressToken != nil, TokenPresent: sent.tokenSent, Claims: ctx.Claims,
		SessionID: r.Header.Get("Mcp-Session-Id")})...)
	c.Warnings = append(c.Warnings, j.cross.check(crossCall{what: "exchange", id: c.Exchange, idemKey: m.Meta.IdempotencyKey(),
		arguments: m.Call.Arguments, claims: ctx.Claims, meta: m.Meta.AgentArea, taskID: m.Meta.TaskID()})...)
	return c
}

// sent is what of a call's context and credential reaches the server.
type sent struct {
	token      string // the token the server receives
	tokenSent  bool   // the client sent one (it may not reach the server)
	credential bool   // the static credential reaches the server
}

// received says what of the context token and the static credential the
// server receives: the proxy drops the headers a client names in
// Connection (each a warning). Over stdio the token comes in _meta. A
// credential header holding the context secret is a warning: the contract
// keeps the two apart (a leaked credential would let its holder sign
// context).
func (j *Judge) received(r Request, m *jsonrpc.Message, c *CallJudgment) sent {
	if r.Header == nil {
		return sent{token: m.Meta.ContextToken, tokenSent: m.Meta.ContextToken != ""}
	}
	h := r.Header
	s := sent{token: h.Get(contextHeader)}
	s.tokenSent = s.token != ""
	for _, name := range []string{"Authorization", j.CredentialHeader} {
		if name != "" && j.isSecret(h.Get(name)) {
			c.warn(model.WarnCredentialIsSecret, "the static credential in "+name+" is the context secret; the contract keeps them different values (a leaked credential would let its holder sign context)")
			break
		}
	}
	if s.token != "" && r.dropped[contextHeader] {
		s.token = ""
		c.warn(model.WarnContextHeaderStripped, "the client lists "+model.ContextHeader+" in Connection, so the proxy removes it as hop-by-hop: the server never receives the token and the verdict is what it sees")
	}
	if j.CredentialHeader != "" {
		name := textproto.CanonicalMIMEHeaderKey(j.CredentialHeader)
		s.credential = h.Get(name) != ""
		if s.credential && (r.dropped[name] || hopByHop[name]) {
			s.credential = false
			c.warn(model.WarnCredentialHeaderStripped, "the client lists "+j.CredentialHeader+" in Connection, so the proxy removes it as hop-by-hop: the server never receives the static credential")
		}
	}
	return s
}

// isSecret says whether a credential header's value, or the part after its
// scheme ("Bearer x"), is one of the context secrets (compared in constant
// time; the value is never kept).
func (j *Judge) isSecret(value string) bool {
	if value == "" {
		return false
	}
	var both [2]string
	candidates := append(both[:0], value)
	if _, rest, ok := strings.Cut(value, " "); ok {
		candidates = append(candidates, strings.TrimSpace(rest))
	}
	for _, secret := range j.Secrets {
		for _, v := range candidates {
			if subtle.ConstantTimeCompare([]byte(v), secret) == 1 {
				return true
			}
		}
	}
	return false
}

func (c *CallJudgment) warn(code model.WarningCode, msg string) {
	c.Warnings = append(c.Warnings, model.Warning{Code: code, Message: msg})
}
