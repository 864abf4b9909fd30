package token

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// The token rules of contract version 1.
const (
	Issuer    = "agentarea"
	Alg       = "HS256"
	MaxAge    = 10 * time.Minute
	ClockSkew = 30 * time.Second
	Lifetime  = 300 * time.Second
	// ProtocolMajor is the only major version of the contract.
	ProtocolMajor     = "1"
	maxMetadataBytes  = 4096
	maxEndUserIDChars = 256
)

// Step names, in the contract's order. StepCredential and StepBatch come
// first and only when they apply (a configured credential header, a batch).
const (
	StepCredential = "credential"
	StepBatch      = "batch"
	StepSignature  = "signature" // 1: HS256 signature, exp/iat, aud, iss
	StepTool       = "tool"      // 2: tool claim equals params.name
	StepMeta       = "meta"      // 3: every agentarea/* key equals its claim
	StepRun        = "run"       // 4: run the tool only after 1-3 pass
)

// Input is one tools/call as far as the context contract goes.
type Input struct {
	Token             string         // raw header value ("" when absent)
	Secrets           [][]byte       // none => decode only, verdict unverified
	InstanceID        string         // expected aud
	ToolName          string         // params.name
	Meta              map[string]any // params._meta
	CredentialPresent bool           // static credential header seen (value never kept)
	RequireCredential bool           // only when the user configured a credential header
	InBatch           bool
	Now               time.Time
	// CallUnknown: only the token is at hand (decode without --call), so
	// steps 2 and 3 are reported as not checked rather than failed.
	CallUnknown bool
	// ParamsProblem and MetaProblem say why params (its name) or its _meta
	// could not be read (ParseCallParams's error): steps 2 and 3 then fail
	// with 400/-32602, whatever the token says.
	ParamsProblem, MetaProblem string
}

// isRegisteredClaim: the JWT claims that are not part of the call context.
func isRegisteredClaim(k string) bool {
	switch k {
	case "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "tool":
		return true
	}
	return false
}

// isStringContextClaim: these context values must be strings, in the token
// and in _meta.
func isStringContextClaim(name string) bool {
	switch name {
	case "protocol", "task_id", "tool_call_id", "workspace_id", "idempotency_key", "agent_id", "end_user_id":
		return true
	}
	return false
}

// failure is a step's failure with the answer it calls for.
type failure struct {
	status, code int
	detail       string
	step         string // set when recorded
}

// Verify runs the contract's verification of a call's token: the steps in
// order (each reported passed or failed), the verdict, the answer a server
// must give (HTTP status and JSON-RPC code) and the reason, the token's
// header and claims (never its signature), and the warnings (the Context
// holds them as "code: message" strings too).
func Verify(in Input) (model.Context, []model.Warning) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	v := verification{in: in, ctx: model.Context{Present: in.Token != "", CredentialPresent: in.CredentialPresent,
		Steps: make([]model.Step, 0, 6)}} // the contract's four, a credential and a batch step
	v.preconditions()
	var keys [16]string
	metaKeys := agentAreaKeys(keys[:0], in.Meta)
	if in.Token == "" {
		return v.noToken(metaKeys)
	}
	tok, err := decodeToken(in.Token)
	v.ctx.Header, v.ctx.Claims = tok.header, tok.claims
	if err != nil {
		return v.stop("unreadable token: "+err.Error(), "unreadable token")
	}
	if typ, ok := tok.header["typ"].(string); !ok || !strings.EqualFold(typ, "JWT") {
		v.warn(model.WarnTokenTyp, "token header typ is %s, the contract says JWT", describe(tok.header["typ"]))
	}
	// Step 1.
	claimProblems, claimSummary := checkRegisteredClaims(tok.claims, in)
	if in.InstanceID == "" {
		v.warn(model.WarnAudUnchecked, "no instance id given: aud %s was not compared", describe(tok.claims["aud"]))
	}
	v.signatureStep(&tok, claimProblems, claimSummary)
	// Steps 2 and 3.
	v.callSteps(tok.claims, metaKeys)
	if len(in.Secrets) == 0 {
		return v.unverified(claimProblems)
	}
	return v.done()
}

// verification is one run of Verify: the context it fills, the warnings,
// and the first failed step (which names the answer).
type verification struct {
	in    Input
	ctx   model.Context
	ws    []model.Warning
	first *failure
}

func (v *verification) warn(code model.WarningCode, format string, args ...any) {
	v.ws = append(v.ws, model.Warning{Code: code, Message: fmt.Sprintf(format, args...)})
}

// step records a step, passed when f is nil; the first failure is the answer.
func (v *verification) step(name string, f *failure, passDetail string) {
	s := model.Step{Name: name, Passed: f == nil, Detail: passDetail}
	if f != nil {
		s.Detail = f.detail
		f.step = name
		if v.first == nil {
			v.first = f
		}
	}
	v.ctx.Steps = append(v.ctx.Steps, s)
}

// done adds the run step and the verdict.
func (v *verification) done() (model.Context, []model.Warning) {
	runStep(&v.ctx, v.first, v.step)
	finish(&v.ctx, v.first, v.ws)
	return v.ctx, v.ws
}

// preconditions are what a server checks before the token: the static
// credential and the batch rule.
func (v *verification) preconditions() {
	if v.in.RequireCredential {
		if v.in.CredentialPresent {
			v.step(StepCredential, nil, "static credential header present")
		} else {
			v.step(StepCredential, fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, "static credential header missing"), "")
		}
	}
	if v.in.InBatch {
		v.step(StepBatch, fail(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "tools/call inside a JSON-RPC batch"), "")
	}
}

// noToken: without a token a call is absent (no secret) or rejected.
func (v *verification) noToken(metaKeys []string) (model.Context, []model.Warning) {
	if len(metaKeys) > 0 {
		v.warn(model.WarnMetaWithoutToken, "_meta carries %d agentarea/* keys but no %s token; AgentArea never sends one without the other", len(metaKeys), model.ContextHeader)
	}
	if len(v.in.Secrets) == 0 {
		v.ctx.Verdict = model.VerdictAbsent
		finish(&v.ctx, v.first, v.ws)
		return v.ctx, v.ws
	}
	return v.stop("no "+model.ContextHeader+" token", "no token")
}

// stop fails step 1 with why and leaves steps 2 and 3 unchecked.
func (v *verification) stop(why, unchecked string) (model.Context, []model.Warning) {
	v.step(StepSignature, fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, why), "")
	v.step(StepTool, fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, "not checked: "+unchecked), "")
	v.step(StepMeta, fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, "not checked: "+unchecked), "")
	return v.done()
}

// signatureStep is step 1: the algorithm, crit, the HMAC with each secret
// and the registered claims (shown, not judged, without a secret).
func (v *verification) signatureStep(tok *decodedToken, claimProblems []string, claimSummary string) {
	in, header := v.in, tok.header
	var sigFail *failure
	switch {
	case header["alg"] != Alg:
		sigFail = fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, fmt.Sprintf("alg %s is not allowed: HS256 only", describe(header["alg"])))
	case header["crit"] != nil:
		// RFC 7515 4.1.11: a recipient must reject a token whose crit names
		// an extension it does not understand, and it understands none.
		sigFail = fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, fmt.Sprintf("crit header %s names extensions this verifier does not understand (RFC 7515 4.1.11)", describe(header["crit"])))
	case len(in.Secrets) == 0:
		detail := "not checked: no secret; " + claimSummary
		if len(claimProblems) > 0 {
			detail = "not checked: no secret; claims: " + strings.Join(claimProblems, "; ")
		}
		v.ctx.Steps = append(v.ctx.Steps, model.Step{Name: StepSignature, Passed: false, Detail: detail})
		return
	default:
		which := verifySignature(tok, in)
		switch {
		case which < 0:
			sigFail = fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, "bad signature: "+signatureProblem(len(in.Secrets)))
		case len(claimProblems) > 0:
			sigFail = fail(http.StatusUnauthorized, jsonrpc.CodeUnauthorized, strings.Join(claimProblems, "; ")+" (the HS256 signature itself is valid)")
		default:
			detail := "HS256 signature valid"
			if len(in.Secrets) > 1 {
				detail += fmt.Sprintf(" (secret %d of %d)", which+1, len(in.Secrets))
			}
			v.step(StepSignature, nil, detail+"; "+claimSummary)
			return
		}
	}
	v.step(StepSignature, sigFail, "")
}

// callSteps are steps 2 (tool) and 3 (_meta against the claims), and the
// contract's warnings; without a call only the token's own claims.
func (v *verification) callSteps(claims map[string]any, metaKeys []string) {
	var few [16]string
	in, names := v.in, contextClaimNames(few[:0], claims)
	if in.CallUnknown {
		v.step(StepTool, nil, "not checked: no call given")
		// The token's own context claims are still checked (types, protocol).
		metaFail, _ := checkMetaClaims(nil, claims, nil, names, v.warn)
		metaDetail := "no call given; the token's context claims are well-formed"
		if p, ok := claims["protocol"].(string); ok {
			metaDetail += fmt.Sprintf(", protocol %q is known", p)
		}
		v.step(StepMeta, metaFail, metaDetail)
		contractWarnings(claims, claimsAsMeta(claims), names, v.warn)
		return
	}
	toolFail, toolDetail := checkToolClaim(claims, in.ToolName)
	if in.ParamsProblem != "" {
		toolFail = fail(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "malformed params: "+in.ParamsProblem)
	}
	v.step(StepTool, toolFail, toolDetail)
	metaFail, metaDetail := checkMetaClaims(in.Meta, claims, metaKeys, names, v.warn)
	if in.MetaProblem != "" {
		metaFail = fail(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "malformed context value: "+in.MetaProblem)
	}
	v.step(StepMeta, metaFail, metaDetail)
	contractWarnings(claims, in.Meta, names, v.warn)
}

// unverified ends a run without a secret: certain failures still decide,
// otherwise the verdict is unverified with what a server would answer.
func (v *verification) unverified(claimProblems []string) (model.Context, []model.Warning) {
	first := v.first
	if first != nil && first.step != StepTool && first.step != StepMeta {
		// A credential, batch or alg failure needs no secret to be certain.
		return v.done()
	}
	v.ctx.Steps = append(v.ctx.Steps, model.Step{Name: StepRun, Passed: false, Detail: "unverified: no secret to check the signature with"})
	v.ctx.Verdict = model.VerdictUnverified
	v.ctx.Reason = "signature not checked (no secret)"
	if len(claimProblems) > 0 {
		v.ctx.Reason += fmt.Sprintf("; the claims already fail step 1, a server answers %d/%d: %s",
			http.StatusUnauthorized, jsonrpc.CodeUnauthorized, strings.Join(claimProblems, "; "))
	} else if first != nil {
		v.ctx.Reason += fmt.Sprintf("; even with a valid signature a server answers %d/%d: %s", first.status, first.code, first.detail)
	}
	v.ctx.Warnings = warningStrings(v.ws)
	return v.ctx, v.ws
}

func runStep(ctx *model.Context, first *failure, step func(string, *failure, string)) {
	if first == nil {
		step(StepRun, nil, "steps 1-3 passed: the server may run the tool")
		return
	}
	step(StepRun, fail(first.status, first.code, fmt.Sprintf("the server must not run the tool: answer HTTP %d with JSON-RPC %d", first.status, first.code)), "")
}

func finish(ctx *model.Context, first *failure, ws []model.Warning) {
	ctx.Warnings = warningStrings(ws)
	if first == nil {
		if ctx.Verdict == "" {
			ctx.Verdict = model.VerdictValid
		}
		return
	}
	ctx.Verdict = model.VerdictRejected
	ctx.HTTPStatus, ctx.RPCCode, ctx.Reason = first.status, first.code, first.detail
}

func warningStrings(ws []model.Warning) []string {
	if len(ws) == 0 {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func fail(status, code int, detail string) *failure {
	return &failure{status: status, code: code, detail: detail}
}
