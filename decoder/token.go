package decoder

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// ContextHeader carries the AgentArea context token.
const ContextHeader = model.ContextHeader

// The token rules of contract version 1.
const (
	TokenIssuer   = "agentarea"
	TokenAlg      = "HS256"
	MaxTokenAge   = 10 * time.Minute
	ClockSkew     = 30 * time.Second
	TokenLifetime = 300 * time.Second
	// contextProtocolMajor is the only major version of the contract.
	contextProtocolMajor = "1"
	maxMetadataBytes     = 4096
	maxEndUserIDChars    = 256
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

// The answers of the contract's table.
const (
	StatusUnauthorized = 401
	StatusForbidden    = 403
	StatusBadRequest   = 400
)

// VerifyInput is one tools/call as far as the context contract goes.
type VerifyInput struct {
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

// registeredClaims are the JWT claims that are not part of the call context.
var registeredClaims = map[string]bool{
	"iss": true, "sub": true, "aud": true, "exp": true, "nbf": true, "iat": true, "jti": true, "tool": true,
}

// isRegisteredClaim is registeredClaims[k], as a switch (no hashing: it runs
// for every claim of every call).
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

// VerifyContext runs the contract's verification of a call's token: the
// steps in order (each reported passed or failed), the verdict, the answer a
// server must give (HTTP status and JSON-RPC code) and the reason, the
// token's header and claims (never its signature) and the warnings.
func VerifyContext(in VerifyInput) model.Context {
	c, _ := Verify(in)
	return c
}

// Verify is VerifyContext that also returns the warnings as Warning values
// (the Context holds them as "code: message" strings).
func Verify(in VerifyInput) (model.Context, []Warning) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	ctx := model.Context{Present: in.Token != "", CredentialPresent: in.CredentialPresent}
	var ws []Warning
	warn := func(code model.WarningCode, format string, args ...any) {
		ws = append(ws, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	var first *failure
	step := func(name string, f *failure, passDetail string) {
		s := model.Step{Name: name, Passed: f == nil, Detail: passDetail}
		if f != nil {
			s.Detail = f.detail
			f.step = name
			if first == nil {
				first = f
			}
		}
		addStep(&ctx, s)
	}

	if in.RequireCredential {
		if in.CredentialPresent {
			step(StepCredential, nil, "static credential header present")
		} else {
			step(StepCredential, fail(StatusUnauthorized, CodeUnauthorized, "static credential header missing"), "")
		}
	}
	if in.InBatch {
		step(StepBatch, fail(StatusBadRequest, CodeInvalidRequest, "tools/call inside a JSON-RPC batch"), "")
	}

	var keysBuf [maxFastFields]string
	metaKeys := appendAgentAreaKeys(keysBuf[:0], in.Meta)
	if in.Token == "" {
		if len(metaKeys) > 0 {
			warn(model.WarnMetaWithoutToken, "_meta carries %d agentarea/* keys but no %s token; AgentArea never sends one without the other", len(metaKeys), ContextHeader)
		}
		if len(in.Secrets) == 0 {
			ctx.Verdict = model.VerdictAbsent
			finish(&ctx, first, ws)
			return ctx, ws
		}
		step(StepSignature, fail(StatusUnauthorized, CodeUnauthorized, "no "+ContextHeader+" token"), "")
		step(StepTool, fail(StatusUnauthorized, CodeUnauthorized, "not checked: no token"), "")
		step(StepMeta, fail(StatusUnauthorized, CodeUnauthorized, "not checked: no token"), "")
		runStep(&ctx, first, step)
		finish(&ctx, first, ws)
		return ctx, ws
	}

	tok, perr := decodeToken(in.Token)
	header, claims := tok.header, tok.claims
	ctx.Header, ctx.Claims = header, claims
	if perr != nil {
		step(StepSignature, fail(StatusUnauthorized, CodeUnauthorized, "unreadable token: "+perr.Error()), "")
		step(StepTool, fail(StatusUnauthorized, CodeUnauthorized, "not checked: unreadable token"), "")
		step(StepMeta, fail(StatusUnauthorized, CodeUnauthorized, "not checked: unreadable token"), "")
		runStep(&ctx, first, step)
		finish(&ctx, first, ws)
		return ctx, ws
	}
	if typ, ok := header["typ"].(string); !ok || !strings.EqualFold(typ, "JWT") {
		warn(model.WarnTokenTyp, "token header typ is %s, the contract says JWT", describe(header["typ"]))
	}

	// Step 1.
	verified := len(in.Secrets) > 0
	var summaryBuf [160]byte
	claimProblems, claimSummary := checkRegisteredClaims(claims, in, summaryBuf[:0])
	if in.InstanceID == "" {
		warn(model.WarnAudUnchecked, "no instance id given: aud %s was not compared", describe(claims["aud"]))
	}
	var sigFail *failure
	switch {
	case header["alg"] != TokenAlg:
		sigFail = fail(StatusUnauthorized, CodeUnauthorized, fmt.Sprintf("alg %s is not allowed: HS256 only", describe(header["alg"])))
	case header["crit"] != nil:
		// RFC 7515 4.1.11: a recipient must reject a token whose crit names
		// an extension it does not understand, and it understands none.
		sigFail = fail(StatusUnauthorized, CodeUnauthorized, fmt.Sprintf("crit header %s names extensions this verifier does not understand (RFC 7515 4.1.11)", describe(header["crit"])))
	case !verified:
		// Decode only; the claim checks are still shown.
	default:
		// The library's claim validator can only change a verdict on claims
		// that pass the checks here and that it reads differently.
		needValidator := len(claimProblems) == 0 && !plainRegisteredClaims(claims)
		which, err := verifySignature(&tok, in, needValidator)
		switch {
		case which < 0:
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, "bad signature: "+signatureProblem(err, len(in.Secrets)))
		case len(claimProblems) > 0:
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, strings.Join(claimProblems, "; ")+" (the HS256 signature itself is valid)")
		case err != nil:
			// golang-jwt refused what the checks here passed: report it rather than guess.
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, "rejected by the JWT library: "+err.Error())
		default:
			var buf [256]byte
			detail := append(buf[:0], "HS256 signature valid"...)
			if len(in.Secrets) > 1 {
				detail = fmt.Appendf(detail, " (secret %d of %d)", which+1, len(in.Secrets))
			}
			step(StepSignature, nil, string(append(append(detail, "; "...), claimSummary...)))
		}
	}
	if sigFail != nil {
		step(StepSignature, sigFail, "")
	} else if !verified {
		detail := "not checked: no secret"
		if len(claimProblems) > 0 {
			detail += "; claims: " + strings.Join(claimProblems, "; ")
		} else {
			detail += "; " + string(claimSummary)
		}
		addStep(&ctx, model.Step{Name: StepSignature, Passed: false, Detail: detail})
	}

	var namesBuf [maxFastFields]string
	names := contextClaimNames(claims, namesBuf[:0])
	if in.CallUnknown {
		step(StepTool, nil, "not checked: no call given")
		// The token's own context claims are still checked (types, protocol).
		metaFail, _ := checkMetaClaims(nil, nil, claims, names, warn)
		metaDetail := "no call given; the token's context claims are well-formed"
		if p, ok := claims["protocol"].(string); ok {
			metaDetail += fmt.Sprintf(", protocol %q is known", p)
		}
		step(StepMeta, metaFail, metaDetail)
		contractWarnings(claims, stripPrefixInverse(claims), names, warn)
	} else {
		// Step 2.
		toolFail, toolDetail := checkToolClaim(claims, in.ToolName)
		if in.ParamsProblem != "" {
			toolFail = fail(StatusBadRequest, CodeInvalidParams, "malformed params: "+in.ParamsProblem)
		}
		step(StepTool, toolFail, toolDetail)

		// Step 3.
		metaFail, metaDetail := checkMetaClaims(in.Meta, metaKeys, claims, names, warn)
		if in.MetaProblem != "" {
			metaFail = fail(StatusBadRequest, CodeInvalidParams, "malformed context value: "+in.MetaProblem)
		}
		step(StepMeta, metaFail, metaDetail)

		contractWarnings(claims, in.Meta, names, warn)
	}

	if !verified {
		if first != nil && first.step != StepTool && first.step != StepMeta {
			// A credential, batch or alg failure needs no secret to be certain.
			runStep(&ctx, first, step)
			finish(&ctx, first, ws)
			return ctx, ws
		}
		addStep(&ctx, model.Step{Name: StepRun, Passed: false, Detail: "unverified: no secret to check the signature with"})
		ctx.Verdict = model.VerdictUnverified
		ctx.Reason = "signature not checked (no secret)"
		if len(claimProblems) > 0 {
			ctx.Reason += fmt.Sprintf("; the claims already fail step 1, a server answers %d/%d: %s",
				StatusUnauthorized, CodeUnauthorized, strings.Join(claimProblems, "; "))
		} else if first != nil {
			ctx.Reason += fmt.Sprintf("; even with a valid signature a server answers %d/%d: %s", first.status, first.code, first.detail)
		}
		ctx.Warnings = warningStrings(ws)
		return ctx, ws
	}
	runStep(&ctx, first, step)
	finish(&ctx, first, ws)
	return ctx, ws
}

// maxSteps is how many steps a verification reports at most: credential,
// batch, the contract's four.
const maxSteps = 6

// addStep records a step; the first one sizes the list for all of them.
func addStep(ctx *model.Context, s model.Step) {
	if ctx.Steps == nil {
		ctx.Steps = make([]model.Step, 0, maxSteps)
	}
	ctx.Steps = append(ctx.Steps, s)
}

func runStep(ctx *model.Context, first *failure, step func(string, *failure, string)) {
	if first == nil {
		step(StepRun, nil, "steps 1-3 passed: the server may run the tool")
		return
	}
	step(StepRun, fail(first.status, first.code, fmt.Sprintf("the server must not run the tool: answer HTTP %d with JSON-RPC %d", first.status, first.code)), "")
}

func finish(ctx *model.Context, first *failure, ws []Warning) {
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

func warningStrings(ws []Warning) []string {
	if len(ws) == 0 {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// signatureProblem says why no secret verified the signature, without ever
// naming a secret.
func signatureProblem(err error, n int) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "the token is malformed"
	case n == 1:
		return "it does not verify with the secret"
	default:
		return fmt.Sprintf("it verifies with none of the %d secrets", n)
	}
}

func fail(status, code int, detail string) *failure {
	return &failure{status: status, code: code, detail: detail}
}
