package decoder

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// ContextHeader carries the AgentArea context token.
const ContextHeader = "X-AgentArea-Context"

// The token rules of contract version 1.
const (
	TokenIssuer   = "agentarea"
	TokenAlg      = "HS256"
	MaxTokenAge   = 10 * time.Minute
	ClockSkew     = 30 * time.Second
	TokenLifetime = 300 * time.Second
	// ContextProtocolMajor is the only major version of the contract.
	ContextProtocolMajor = "1"
	MaxMetadataBytes     = 4096
	MaxEndUserIDChars    = 256
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
}

// registeredClaims are the JWT claims that are not part of the call context.
var registeredClaims = map[string]bool{
	"iss": true, "sub": true, "aud": true, "exp": true, "nbf": true, "iat": true, "jti": true, "tool": true,
}

// stringContextClaims must be strings, in the token and in _meta.
var stringContextClaims = map[string]bool{
	"protocol": true, "task_id": true, "tool_call_id": true, "workspace_id": true,
	"idempotency_key": true, "agent_id": true, "end_user_id": true,
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
	warn := func(code, format string, args ...any) {
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
		ctx.Steps = append(ctx.Steps, s)
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

	metaKeys := agentAreaKeys(in.Meta)
	if in.Token == "" {
		if len(metaKeys) > 0 {
			warn("meta_without_token", "_meta carries %d agentarea/* keys but no %s token; AgentArea never sends one without the other", len(metaKeys), ContextHeader)
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

	header, claims, perr := decodeToken(in.Token)
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
		warn("token_typ", "token header typ is %s, the contract says JWT", describe(header["typ"]))
	}

	// Step 1.
	verified := len(in.Secrets) > 0
	claimProblems, claimSummary := checkRegisteredClaims(claims, in)
	if in.InstanceID == "" {
		warn("aud_unchecked", "no instance id given: aud %s was not compared", describe(claims["aud"]))
	}
	var sigFail *failure
	switch {
	case header["alg"] != TokenAlg:
		sigFail = fail(StatusUnauthorized, CodeUnauthorized, fmt.Sprintf("alg %s is not allowed: HS256 only", describe(header["alg"])))
	case !verified:
		// Decode only; the claim checks are still shown.
	default:
		which, err := verifySignature(in)
		switch {
		case which < 0:
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, "bad signature: "+signatureProblem(err, len(in.Secrets)))
		case len(claimProblems) > 0:
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, strings.Join(claimProblems, "; ")+" (the HS256 signature itself is valid)")
		case err != nil:
			// golang-jwt refused what the checks here passed: report it rather than guess.
			sigFail = fail(StatusUnauthorized, CodeUnauthorized, "rejected by the JWT library: "+err.Error())
		default:
			secretNote := ""
			if len(in.Secrets) > 1 {
				secretNote = fmt.Sprintf(" (secret %d of %d)", which+1, len(in.Secrets))
			}
			step(StepSignature, nil, "HS256 signature valid"+secretNote+"; "+claimSummary)
		}
	}
	if sigFail != nil {
		step(StepSignature, sigFail, "")
	} else if !verified {
		detail := "not checked: no secret"
		if len(claimProblems) > 0 {
			detail += "; claims: " + strings.Join(claimProblems, "; ")
		} else {
			detail += "; " + claimSummary
		}
		ctx.Steps = append(ctx.Steps, model.Step{Name: StepSignature, Passed: false, Detail: detail})
	}

	if in.CallUnknown {
		step(StepTool, nil, "not checked: no call given")
		// The token's own context claims are still checked (types, protocol).
		metaFail, _ := checkMetaClaims(nil, nil, claims, warn)
		metaDetail := "no call given; the token's context claims are well-formed"
		if p, ok := claims["protocol"].(string); ok {
			metaDetail += fmt.Sprintf(", protocol %q is known", p)
		}
		step(StepMeta, metaFail, metaDetail)
		contractWarnings(claims, stripPrefixInverse(claims), nil, warn)
	} else {
		// Step 2.
		toolFail, toolDetail := checkToolClaim(claims, in.ToolName)
		step(StepTool, toolFail, toolDetail)

		// Step 3.
		metaFail, metaDetail := checkMetaClaims(in.Meta, metaKeys, claims, warn)
		step(StepMeta, metaFail, metaDetail)

		contractWarnings(claims, in.Meta, metaKeys, warn)
	}

	if !verified {
		if first != nil && first.step != StepTool && first.step != StepMeta {
			// A credential, batch or alg failure needs no secret to be certain.
			runStep(&ctx, first, step)
			finish(&ctx, first, ws)
			return ctx, ws
		}
		ctx.Steps = append(ctx.Steps, model.Step{Name: StepRun, Passed: false, Detail: "unverified: no secret to check the signature with"})
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

// decodeToken reads a compact JWS's header and claims (never its
// signature) the way golang-jwt does: three segments, unpadded base64url,
// JSON objects.
func decodeToken(token string) (header, claims map[string]any, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, nil, fmt.Errorf("a JWT has 3 dot-separated parts, this has %d", len(parts))
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, nil, errors.New("header is not base64url")
	}
	if err := json.Unmarshal(hb, &header); err != nil || header == nil {
		return nil, nil, errors.New("header is not a JSON object")
	}
	cb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return header, nil, errors.New("claims are not base64url")
	}
	if err := json.Unmarshal(cb, &claims); err != nil || claims == nil {
		return header, nil, errors.New("claims are not a JSON object")
	}
	if _, err := base64.RawURLEncoding.DecodeString(parts[2]); err != nil {
		return header, claims, errors.New("signature is not base64url")
	}
	return header, claims, nil
}

// verifySignature checks the token with golang-jwt, HS256 only. The secret
// that signed it is found with the library's HS256 Verify on the signing
// input (cheap: no parsing), then the token is parsed once with that secret
// and the library's own claim validation configured to the contract. It
// returns the index of the secret (-1 when none verifies) and the library's
// verdict.
func verifySignature(in VerifyInput) (int, error) {
	dot := strings.LastIndexByte(in.Token, '.')
	if dot < 0 {
		return -1, jwt.ErrTokenMalformed
	}
	sig, err := base64.RawURLEncoding.DecodeString(in.Token[dot+1:])
	if err != nil {
		return -1, jwt.ErrTokenMalformed
	}
	which := -1
	for i, secret := range in.Secrets {
		if jwt.SigningMethodHS256.Verify(in.Token[:dot], sig, secret) == nil {
			which = i
			break
		}
	}
	if which < 0 {
		return -1, jwt.ErrSignatureInvalid
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{TokenAlg}),
		jwt.WithIssuer(TokenIssuer),
		jwt.WithLeeway(ClockSkew),
		jwt.WithTimeFunc(func() time.Time { return in.Now }),
		jwt.WithIssuedAt(),
		jwt.WithExpirationRequired(),
	}
	if in.InstanceID != "" {
		opts = append(opts, jwt.WithAudience(in.InstanceID))
	}
	key := in.Secrets[which]
	_, err = jwt.NewParser(opts...).Parse(in.Token, func(*jwt.Token) (any, error) { return key, nil })
	if errors.Is(err, jwt.ErrTokenSignatureInvalid) || errors.Is(err, jwt.ErrTokenMalformed) || errors.Is(err, jwt.ErrTokenUnverifiable) {
		return -1, err
	}
	return which, err
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

// checkRegisteredClaims applies step 1's claim rules and describes them.
func checkRegisteredClaims(claims map[string]any, in VerifyInput) (problems []string, summary string) {
	now := in.Now
	var ok []string
	if iss, _ := claims["iss"].(string); iss == TokenIssuer {
		ok = append(ok, "iss agentarea")
	} else {
		problems = append(problems, fmt.Sprintf("wrong iss %s (must be %q)", describe(claims["iss"]), TokenIssuer))
	}
	if in.InstanceID != "" {
		if audMatches(claims["aud"], in.InstanceID) {
			ok = append(ok, "aud is the instance id")
		} else {
			problems = append(problems, fmt.Sprintf("wrong aud %s (instance id is %s)", describe(claims["aud"]), clip(in.InstanceID)))
		}
	}
	exp, expOK := numericDate(claims["exp"])
	iat, iatOK := numericDate(claims["iat"])
	switch {
	case claims["iat"] == nil:
		problems = append(problems, "no iat claim")
	case !iatOK:
		problems = append(problems, "iat is not a number")
	case iat.After(now.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("issued in the future: iat is %s ahead (over the %s skew)", HumanDuration(iat.Sub(now)), HumanDuration(ClockSkew)))
	case now.Sub(iat) > MaxTokenAge+ClockSkew:
		problems = append(problems, fmt.Sprintf("issued %s ago: older than %s", HumanDuration(now.Sub(iat)), HumanDuration(MaxTokenAge)))
	default:
		ok = append(ok, "issued "+HumanDuration(now.Sub(iat))+" ago")
	}
	switch {
	case claims["exp"] == nil:
		problems = append(problems, "no exp claim")
	case !expOK:
		problems = append(problems, "exp is not a number")
	case !now.Before(exp.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("expired %s ago (exp %s, %s skew allowed)", HumanDuration(now.Sub(exp)), exp.UTC().Format(time.RFC3339), HumanDuration(ClockSkew)))
	default:
		ok = append(ok, "expires in "+HumanDuration(exp.Sub(now)))
	}
	if v, present := claims["nbf"]; present {
		nbf, nbfOK := numericDate(v)
		switch {
		case !nbfOK:
			problems = append(problems, "nbf is not a number")
		case nbf.After(now.Add(ClockSkew)):
			problems = append(problems, fmt.Sprintf("not valid before %s", nbf.UTC().Format(time.RFC3339)))
		}
	}
	return problems, strings.Join(ok, ", ")
}

func audMatches(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, v := range a {
			if s, _ := v.(string); s == want {
				return true
			}
		}
	}
	return false
}

// numericDate reads a JWT NumericDate (seconds, possibly fractional).
func numericDate(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || f != f || f > 1e15 || f < -1e15 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

func checkToolClaim(claims map[string]any, toolName string) (*failure, string) {
	v, present := claims["tool"]
	if !present {
		return nil, "no tool claim (checked only when present)"
	}
	if s, ok := v.(string); ok && s == toolName {
		return nil, fmt.Sprintf("tool %s equals params.name", describe(s))
	}
	return fail(StatusForbidden, CodeForbidden, fmt.Sprintf("tool claim %s does not match params.name %s", describe(v), describe(toolName))), ""
}

// agentAreaKeys lists the agentarea/* keys of _meta, sorted.
func agentAreaKeys(meta map[string]any) []string {
	var keys []string
	for k := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			keys = append(keys, k)
		}
	}
	sortStrings(keys)
	return keys
}

// checkMetaClaims is step 3: every agentarea/* key of _meta equals its claim
// (objects compared regardless of key order), values have the contract's
// types (a malformed one is 400/-32602), and the protocol's major is known.
func checkMetaClaims(meta map[string]any, keys []string, claims map[string]any, warn func(string, string, ...any)) (*failure, string) {
	// Malformed values first: they make the call unreadable, not mismatched.
	for _, k := range keys {
		if p := malformedContextValue(strings.TrimPrefix(k, AgentAreaPrefix), meta[k]); p != "" {
			return fail(StatusBadRequest, CodeInvalidParams, "malformed _meta "+k+": "+p), ""
		}
	}
	for _, name := range sortedKeys(claims) {
		if registeredClaims[name] {
			continue
		}
		if p := malformedContextValue(name, claims[name]); p != "" {
			return fail(StatusBadRequest, CodeInvalidParams, "malformed claim "+name+": "+p), ""
		}
	}
	var problems []string
	proto, hasProto := claims["protocol"].(string)
	if !hasProto {
		if s, ok := meta[MetaProtocol].(string); ok {
			proto, hasProto = s, true
		}
	}
	if hasProto {
		if major, _, _ := strings.Cut(proto, "."); major != ContextProtocolMajor {
			problems = append(problems, fmt.Sprintf("unknown major protocol %q (this is contract %s)", proto, ContextProtocolMajor))
		}
	} else {
		warn("protocol_missing", "neither the token nor _meta names agentarea/protocol")
	}
	mismatches := 0
	for _, k := range keys {
		name := strings.TrimPrefix(k, AgentAreaPrefix)
		cv, present := claims[name]
		var m string
		switch {
		case !present:
			m = fmt.Sprintf("%s has no claim", k)
		case !jsonEqual(meta[k], cv):
			m = fmt.Sprintf("%s is %s but the claim is %s", k, describe(meta[k]), describe(cv))
		default:
			continue
		}
		mismatches++
		warn("meta_claim_mismatch", "%s", m)
		problems = append(problems, m)
	}
	if len(problems) > 0 {
		prefix := ""
		if mismatches > 0 {
			prefix = "token does not match the call: "
		}
		return fail(StatusForbidden, CodeForbidden, prefix+strings.Join(problems, "; ")), ""
	}
	detail := fmt.Sprintf("%d agentarea/* keys equal their claims", len(keys))
	if hasProto {
		detail += fmt.Sprintf("; protocol %q known", proto)
	}
	return nil, detail
}

// malformedContextValue says what is wrong with a context value's type or
// form, or "".
func malformedContextValue(name string, v any) string {
	switch {
	case name == "metadata":
		if _, ok := v.(map[string]any); !ok {
			return "must be a JSON object, is " + jsonType(v)
		}
	case stringContextClaims[name]:
		s, ok := v.(string)
		if !ok {
			return "must be a string, is " + jsonType(v)
		}
		if name == "protocol" && !validProtocol(s) {
			return fmt.Sprintf("%q is not \"<major>\" or \"<major>.<minor>\"", clip(s))
		}
	}
	return ""
}

func validProtocol(s string) bool {
	major, minor, hasMinor := strings.Cut(s, ".")
	return allDigits(major) && (!hasMinor || allDigits(minor))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// contractWarnings flags what the contract promises but a server need not
// check.
func contractWarnings(claims, meta map[string]any, metaKeys []string, warn func(string, string, ...any)) {
	for _, name := range sortedKeys(claims) {
		if registeredClaims[name] {
			continue
		}
		if _, ok := meta[AgentAreaPrefix+name]; !ok {
			warn("claim_missing_from_meta", "the token's context claim %s has no agentarea/%s key in _meta", name, name)
		}
	}
	exp, expOK := numericDate(claims["exp"])
	iat, iatOK := numericDate(claims["iat"])
	if expOK && iatOK && exp.Sub(iat) != TokenLifetime {
		warn("token_lifetime", "exp - iat is %s; the contract says exp = iat + 300", HumanDuration(exp.Sub(iat)))
	}
	src := claims
	if len(claims) == 0 {
		src = stripPrefix(meta)
	}
	task, _ := src["task_id"].(string)
	call, _ := src["tool_call_id"].(string)
	if key, ok := src["idempotency_key"].(string); ok && task != "" && call != "" && key != task+":"+call {
		warn("idempotency_key_format", "idempotency_key %s is not task_id:tool_call_id", describe(key))
	}
	if md, ok := src["metadata"].(map[string]any); ok {
		if b, err := json.Marshal(md); err == nil && len(b) > MaxMetadataBytes {
			warn("metadata_too_large", "metadata is %d bytes of JSON; the platform accepts at most %d", len(b), MaxMetadataBytes)
		}
	}
	if eu, ok := src["end_user_id"].(string); ok {
		if n := len([]rune(eu)); n < 1 || n > MaxEndUserIDChars {
			warn("end_user_id_length", "end_user_id is %d characters; the platform accepts 1 to %d", n, MaxEndUserIDChars)
		}
	}
}

func stripPrefix(meta map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			out[strings.TrimPrefix(k, AgentAreaPrefix)] = v
		}
	}
	return out
}

func fail(status, code int, detail string) *failure {
	return &failure{status: status, code: code, detail: detail}
}

// stripPrefixInverse builds the _meta a call carrying these claims would
// have, so a decode without a call does not warn of claims "missing" from it.
func stripPrefixInverse(claims map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range claims {
		if !registeredClaims[k] {
			out[AgentAreaPrefix+k] = v
		}
	}
	return out
}
