package token

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/model/modeltest"
)

// The token fixtures are the test kit's, shared with cli's decode tests.
const (
	testSecret   = modeltest.Secret
	otherSecret  = modeltest.OtherSecret
	testInstance = modeltest.Instance
)

var (
	testNow        = modeltest.Now
	baseClaims     = modeltest.BaseClaims
	metaFor        = modeltest.MetaFor
	roundTrip      = modeltest.RoundTrip
	sign           = modeltest.Sign
	signWithHeader = modeltest.SignWithHeader
)

type tokenCase struct {
	rule    string
	claims  func(jwt.MapClaims)                        // edits the signed claims
	meta    func(map[string]any)                       // edits _meta after it was built from the claims
	token   func(t *testing.T, c jwt.MapClaims) string // replaces the default HS256 signing
	input   func(*Input)
	verdict string
	status  int
	code    int
	failed  string // the first failing step
	warning string // a warning code that must appear
}

func TestVerifyContextRules(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	cases := []tokenCase{
		{rule: "valid token and matching call pass", verdict: model.VerdictValid},
		{rule: "rotation: the old secret still verifies", input: func(in *Input) {
			in.Secrets = [][]byte{[]byte(otherSecret), []byte(testSecret)}
		}, verdict: model.VerdictValid},
		{rule: "rotation: the new secret verifies", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodHS256, c, []byte(otherSecret))
		}, input: func(in *Input) { in.Secrets = [][]byte{[]byte(testSecret), []byte(otherSecret)} }, verdict: model.VerdictValid},
		{rule: "alg none is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodNone, c, jwt.UnsafeAllowNoneSignatureType)
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "alg none is rejected even without a secret", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodNone, c, jwt.UnsafeAllowNoneSignatureType)
		}, input: func(in *Input) { in.Secrets = nil }, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "alg HS384 is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodHS384, c, []byte(testSecret))
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "alg HS512 is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodHS512, c, []byte(testSecret))
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "alg confusion: an RS256 token is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodRS256, c, rsaKey)
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "alg confusion: RS256 header over an HMAC signature is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			good := sign(t, jwt.SigningMethodHS256, c, []byte(testSecret))
			parts := strings.Split(good, ".")
			parts[0] = modeltest.B64URL(`{"alg":"RS256","typ":"JWT"}`)
			return strings.Join(parts, ".")
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "crit naming an unknown extension is rejected (RFC 7515 4.1.11)", token: func(t *testing.T, c jwt.MapClaims) string {
			return signWithHeader(t, c, map[string]any{"crit": []string{"exp-x"}, "exp-x": true})
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "crit is rejected even without a secret", token: func(t *testing.T, c jwt.MapClaims) string {
			return signWithHeader(t, c, map[string]any{"crit": []string{"b64"}, "b64": false})
		}, input: func(in *Input) { in.Secrets = nil }, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "an empty crit is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return signWithHeader(t, c, map[string]any{"crit": []string{}})
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "params name unreadable is a malformed call", input: func(in *Input) {
			in.ToolName, in.ParamsProblem = "", "tools/call name is not a string"
		}, verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepTool},
		{rule: "_meta not an object is a malformed context value", input: func(in *Input) {
			in.Meta, in.MetaProblem = nil, "tools/call _meta is not an object"
		}, verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepMeta},
		{rule: "wrong key is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodHS256, c, []byte(otherSecret))
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "tampered claims are rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			good := sign(t, jwt.SigningMethodHS256, c, []byte(testSecret))
			c["end_user_id"] = "admin"
			forged := sign(t, jwt.SigningMethodHS256, c, []byte(otherSecret))
			return strings.Join([]string{strings.Split(forged, ".")[0], strings.Split(forged, ".")[1], strings.Split(good, ".")[2]}, ".")
		}, meta: func(m map[string]any) { m[jsonrpc.MetaEndUserID] = "admin" }, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "wrong key with several secrets is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			return sign(t, jwt.SigningMethodHS256, c, []byte(strings.Repeat("q", 40)))
		}, input: func(in *Input) { in.Secrets = [][]byte{[]byte(testSecret), []byte(otherSecret)} },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "a header that is not base64url is rejected", token: func(*testing.T, jwt.MapClaims) string { return "@@.e30.AAAA" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "claims that are not a JSON object are rejected", token: func(*testing.T, jwt.MapClaims) string {
			return modeltest.B64URL(`{"alg":"HS256"}`) + "." + modeltest.B64URL(`[1]`) + ".AAAA"
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "a signature that is not base64url is rejected", token: func(t *testing.T, c jwt.MapClaims) string {
			good := sign(t, jwt.SigningMethodHS256, c, []byte(testSecret))
			return good[:strings.LastIndexByte(good, '.')+1] + "a+b/"
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "five segments (a JWE) are rejected", token: func(*testing.T, jwt.MapClaims) string { return "a.b.c.d.e" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "unreadable token is rejected", token: func(*testing.T, jwt.MapClaims) string { return "not-a-jwt" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "missing token is rejected when a secret is set", token: func(*testing.T, jwt.MapClaims) string { return "" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature, warning: "meta_without_token"},
		{rule: "missing token without a secret is absent", token: func(*testing.T, jwt.MapClaims) string { return "" },
			meta: func(m map[string]any) { clear(m) }, input: func(in *Input) { in.Secrets = nil }, verdict: model.VerdictAbsent},
		{rule: "missing static credential is rejected", input: func(in *Input) {
			in.RequireCredential, in.CredentialPresent = true, false
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepCredential},
		{rule: "present static credential passes", input: func(in *Input) {
			in.RequireCredential, in.CredentialPresent = true, true
		}, verdict: model.VerdictValid},
		{rule: "tools/call inside a batch is rejected", input: func(in *Input) { in.InBatch = true },
			verdict: model.VerdictRejected, status: 400, code: -32600, failed: StepBatch},
		{rule: "expired token is rejected", claims: func(c jwt.MapClaims) {
			c["iat"] = testNow.Add(-400 * time.Second).Unix()
			c["exp"] = testNow.Add(-100 * time.Second).Unix()
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "expired within the 30 s skew passes", claims: func(c jwt.MapClaims) {
			c["iat"] = testNow.Add(-310 * time.Second).Unix()
			c["exp"] = testNow.Add(-10 * time.Second).Unix()
		}, verdict: model.VerdictValid},
		{rule: "issued in the future beyond the skew is rejected", claims: func(c jwt.MapClaims) {
			c["iat"] = testNow.Add(60 * time.Second).Unix()
			c["exp"] = testNow.Add(360 * time.Second).Unix()
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "issued in the future within the skew passes", claims: func(c jwt.MapClaims) {
			c["iat"] = testNow.Add(20 * time.Second).Unix()
			c["exp"] = testNow.Add(320 * time.Second).Unix()
		}, verdict: model.VerdictValid},
		{rule: "older than 10 minutes is rejected even when not expired", claims: func(c jwt.MapClaims) {
			c["iat"] = testNow.Add(-11 * time.Minute).Unix()
			c["exp"] = testNow.Add(time.Hour).Unix()
		}, verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature, warning: "token_lifetime"},
		{rule: "no exp is rejected", claims: func(c jwt.MapClaims) { delete(c, "exp") },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "no iat is rejected", claims: func(c jwt.MapClaims) { delete(c, "iat") },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "an aud array naming the instance passes", claims: func(c jwt.MapClaims) { c["aud"] = []any{"other", testInstance} },
			verdict: model.VerdictValid},
		{rule: "an aud array holding a number is rejected, as golang-jwt rejects it", claims: func(c jwt.MapClaims) { c["aud"] = []any{testInstance, 5} },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "wrong aud is rejected", claims: func(c jwt.MapClaims) { c["aud"] = "another-instance" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "wrong iss is rejected", claims: func(c jwt.MapClaims) { c["iss"] = "evil" },
			verdict: model.VerdictRejected, status: 401, code: -32001, failed: StepSignature},
		{rule: "tool mismatch is rejected", claims: func(c jwt.MapClaims) { c["tool"] = "delete_order" },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepTool},
		{rule: "absent tool claim is not checked", claims: func(c jwt.MapClaims) { delete(c, "tool") },
			verdict: model.VerdictValid},
		{rule: "meta mismatch is rejected", meta: func(m map[string]any) { m[jsonrpc.MetaTaskID] = "other-task" },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta, warning: "meta_claim_mismatch"},
		{rule: "meta object mismatch is rejected", meta: func(m map[string]any) {
			m[jsonrpc.MetaMetadata] = map[string]any{"chatId": "c-10", "nested": map[string]any{"a": 1.0, "b": []any{1.0, 2.0}}}
		}, verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta, warning: "meta_claim_mismatch"},
		{rule: "meta key without a claim is rejected", meta: func(m map[string]any) { m["agentarea/extra"] = "x" },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta},
		{rule: "meta with reordered object keys passes", meta: func(m map[string]any) {
			var md map[string]any
			must(json.Unmarshal([]byte(`{"nested":{"b":[1,2],"a":1},"chatId":"c-9"}`), &md))
			m[jsonrpc.MetaMetadata] = md
		}, verdict: model.VerdictValid},
		{rule: "protocol 2 is rejected", claims: func(c jwt.MapClaims) { c["protocol"] = "2" },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta},
		{rule: "protocol 2.0 is rejected", claims: func(c jwt.MapClaims) { c["protocol"] = "2.0" },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta},
		{rule: "protocol 1.7 passes", claims: func(c jwt.MapClaims) { c["protocol"] = "1.7" }, verdict: model.VerdictValid},
		{rule: "malformed protocol is 400", claims: func(c jwt.MapClaims) { c["protocol"] = "v1" },
			verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepMeta},
		{rule: "malformed metadata is 400", meta: func(m map[string]any) { m[jsonrpc.MetaMetadata] = "chatId=c-9" },
			verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepMeta},
		{rule: "malformed task_id is 400", meta: func(m map[string]any) { m[jsonrpc.MetaTaskID] = 17.0 },
			verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepMeta},
		{rule: "malformed metadata claim is 400", claims: func(c jwt.MapClaims) { c["metadata"] = []any{"x"} },
			verdict: model.VerdictRejected, status: 400, code: -32602, failed: StepMeta},
		{rule: "metadata equals its claim whatever the order of its keys", claims: func(c jwt.MapClaims) {
			c["metadata"] = map[string]any{"a": "s", "b": []any{1.0, map[string]any{"x": 1.0, "y": 2.0}}}
		}, meta: func(m map[string]any) {
			var reordered any
			must(json.Unmarshal([]byte(`{"b":[1,{"y":2,"x":1}],"a":"s"}`), &reordered))
			m[jsonrpc.MetaMetadata] = reordered
		}, verdict: model.VerdictValid},
		{rule: "metadata arrays keep their order", claims: func(c jwt.MapClaims) {
			c["metadata"] = map[string]any{"b": []any{1.0, 2.0}}
		}, meta: func(m map[string]any) { m[jsonrpc.MetaMetadata] = map[string]any{"b": []any{2.0, 1.0}} },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta},
		{rule: "a string is not a number", meta: func(m map[string]any) { m[jsonrpc.MetaMetadata] = map[string]any{"n": "1"} },
			claims:  func(c jwt.MapClaims) { c["metadata"] = map[string]any{"n": 1.0} },
			verdict: model.VerdictRejected, status: 403, code: -32003, failed: StepMeta},
		{rule: "no secret gives unverified", input: func(in *Input) { in.Secrets = nil }, verdict: model.VerdictUnverified},
		{rule: "no secret with a mismatching call stays unverified", input: func(in *Input) { in.Secrets = nil },
			meta: func(m map[string]any) { m[jsonrpc.MetaTaskID] = "other" }, verdict: model.VerdictUnverified, warning: "meta_claim_mismatch"},
		{rule: "warning: context claim missing from _meta", meta: func(m map[string]any) { delete(m, jsonrpc.MetaAgentID) },
			verdict: model.VerdictValid, warning: "claim_missing_from_meta"},
		{rule: "warning: exp is not iat + 300", claims: func(c jwt.MapClaims) { c["exp"] = c["iat"].(int64) + 200 },
			verdict: model.VerdictValid, warning: "token_lifetime"},
		{rule: "warning: idempotency_key is not task_id:tool_call_id", claims: func(c jwt.MapClaims) { c["idempotency_key"] = "k1" },
			verdict: model.VerdictValid, warning: "idempotency_key_format"},
		{rule: "warning: metadata over 4096 bytes", claims: func(c jwt.MapClaims) {
			c["metadata"] = map[string]any{"blob": strings.Repeat("x", 4100)}
		}, verdict: model.VerdictValid, warning: "metadata_too_large"},
		{rule: "warning: end_user_id empty", claims: func(c jwt.MapClaims) { c["end_user_id"] = "" },
			verdict: model.VerdictValid, warning: "end_user_id_length"},
		{rule: "warning: end_user_id over 256 characters", claims: func(c jwt.MapClaims) { c["end_user_id"] = strings.Repeat("é", 257) },
			verdict: model.VerdictValid, warning: "end_user_id_length"},
		{rule: "warning: no instance id leaves aud unchecked", input: func(in *Input) { in.InstanceID = "" },
			verdict: model.VerdictValid, warning: "aud_unchecked"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			claims := baseClaims()
			if c.claims != nil {
				c.claims(claims)
			}
			meta := metaFor(claims)
			if c.meta != nil {
				c.meta(meta)
			}
			var token string
			if c.token != nil {
				token = c.token(t, claims)
			} else {
				token = sign(t, jwt.SigningMethodHS256, claims, []byte(testSecret))
			}
			in := Input{Token: token, Secrets: [][]byte{[]byte(testSecret)}, InstanceID: testInstance,
				ToolName: "get_order", Meta: meta, Now: testNow}
			if c.input != nil {
				c.input(&in)
			}
			ctx, ws := Verify(in)
			checkContext(t, c, ctx, ws, token)
			if got := verifyContext(in); got.Verdict != ctx.Verdict || len(got.Steps) != len(ctx.Steps) {
				t.Fatalf("VerifyContext differs from Verify: %+v", got)
			}
		})
	}
}

func checkContext(t *testing.T, c tokenCase, ctx model.Context, ws []model.Warning, token string) {
	t.Helper()
	if ctx.Verdict != c.verdict || ctx.HTTPStatus != c.status || ctx.RPCCode != c.code {
		t.Fatalf("got %s %d/%d (%s), want %s %d/%d\nsteps: %+v", ctx.Verdict, ctx.HTTPStatus, ctx.RPCCode, ctx.Reason,
			c.verdict, c.status, c.code, ctx.Steps)
	}
	if c.verdict != model.VerdictAbsent {
		var names []string
		for _, s := range ctx.Steps {
			names = append(names, s.Name)
		}
		tail := strings.Join(names[len(names)-4:], ",")
		if tail != "signature,tool,meta,run" {
			t.Fatalf("steps %v are not the contract's four in order", names)
		}
		run := ctx.Steps[len(ctx.Steps)-1]
		if run.Passed != (c.verdict == model.VerdictValid) {
			t.Fatalf("run step passed=%v with verdict %s", run.Passed, c.verdict)
		}
	}
	if c.failed != "" {
		var first string
		for _, s := range ctx.Steps {
			if !s.Passed {
				first = s.Name
				break
			}
		}
		if first != c.failed {
			t.Fatalf("first failing step %q, want %q: %+v", first, c.failed, ctx.Steps)
		}
		if ctx.Reason == "" {
			t.Fatal("a rejection without a reason")
		}
	}
	if c.warning != "" {
		found := false
		for _, w := range ws {
			found = found || string(w.Code) == c.warning
		}
		if !found {
			t.Fatalf("no %s warning in %v", c.warning, ws)
		}
		if len(ctx.Warnings) != len(ws) {
			t.Fatalf("context warnings %v differ from %v", ctx.Warnings, ws)
		}
	}
	if c.verdict == model.VerdictValid {
		for _, w := range ws {
			if w.Code == "meta_claim_mismatch" {
				t.Fatalf("valid call with mismatch warning %v", w)
			}
		}
	}
	// Nothing may carry the signature or a secret.
	out, err := json.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(token, "."); len(parts) == 3 && len(parts[2]) > 8 && strings.Contains(string(out), parts[2]) {
		t.Fatalf("the signature leaked: %s", out)
	}
	for _, s := range []string{testSecret, otherSecret} {
		if strings.Contains(string(out), s) {
			t.Fatalf("a secret leaked: %s", out)
		}
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func TestVerifyUnverifiedReasons(t *testing.T) {
	cases := []struct {
		rule   string
		claims func(jwt.MapClaims)
		meta   func(map[string]any)
		reason string
	}{
		{"expired claims name the 401 a server gives", func(c jwt.MapClaims) { c["exp"] = testNow.Add(-time.Hour).Unix() }, nil, "401/-32001"},
		{"a mismatching call names the 403 a server gives", nil, func(m map[string]any) { m[jsonrpc.MetaTaskID] = "x" }, "403/-32003"},
		{"a matching call only says the signature was not checked", nil, nil, "signature not checked (no secret)"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			claims := baseClaims()
			if c.claims != nil {
				c.claims(claims)
			}
			meta := metaFor(claims)
			if c.meta != nil {
				c.meta(meta)
			}
			ctx := verifyContext(Input{Token: sign(t, jwt.SigningMethodHS256, claims, []byte(testSecret)),
				InstanceID: testInstance, ToolName: "get_order", Meta: meta, Now: testNow})
			if ctx.Verdict != model.VerdictUnverified || ctx.HTTPStatus != 0 || !strings.Contains(ctx.Reason, c.reason) {
				t.Fatalf("%s %d %q", ctx.Verdict, ctx.HTTPStatus, ctx.Reason)
			}
		})
	}
}
