package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
	"toolscope/model/modeltest"
)

const fuzzSecret = "fuzz-secret-0123456789abcdefghijklmnop"

var verdicts = map[string]bool{model.VerdictValid: true, model.VerdictRejected: true, model.VerdictUnverified: true, model.VerdictAbsent: true}

func FuzzVerifyContext(f *testing.F) {
	good, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, baseClaims()).SignedString([]byte(fuzzSecret))
	f.Add(good, string(modeltest.MustJSON(metaFor(baseClaims()))), "get_order")
	f.Add("e30.e30.", "{}", "")
	f.Fuzz(func(t *testing.T, token, metaJSON, tool string) {
		var meta map[string]any
		_ = json.Unmarshal([]byte(metaJSON), &meta)
		for _, secrets := range [][][]byte{nil, {[]byte(fuzzSecret)}} {
			in := Input{Token: token, Secrets: secrets, InstanceID: testInstance, ToolName: tool, Meta: meta, Now: testNow}
			ctx, ws := Verify(in)
			if !verdicts[ctx.Verdict] {
				t.Fatalf("verdict %q", ctx.Verdict)
			}
			if ctx.Present != (token != "") || len(ctx.Warnings) != len(ws) {
				t.Fatalf("present %v warnings %d/%d", ctx.Present, len(ctx.Warnings), len(ws))
			}
			if ctx.Verdict == model.VerdictRejected && (ctx.HTTPStatus == 0 || ctx.RPCCode == 0 || ctx.Reason == "") {
				t.Fatalf("rejected without an answer: %+v", ctx)
			}
			if ctx.Verdict == model.VerdictValid {
				if len(secrets) == 0 {
					t.Fatal("valid without a secret")
				}
				// An independent check: golang-jwt with the contract's options must accept it.
				_, err := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return testNow }),
					jwt.WithLeeway(ClockSkew), jwt.WithAudience(testInstance), jwt.WithIssuer("agentarea"), jwt.WithIssuedAt(), jwt.WithExpirationRequired()).
					Parse(token, func(*jwt.Token) (any, error) { return []byte(fuzzSecret), nil })
				if err != nil {
					t.Fatalf("valid, but golang-jwt says %v", err)
				}
			}
			if token != "" && ctx.Verdict != model.VerdictAbsent {
				if n := len(ctx.Steps); n < 4 || ctx.Steps[n-1].Name != StepRun {
					t.Fatalf("steps %+v", ctx.Steps)
				}
			}
			out, err := json.Marshal(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), fuzzSecret) {
				t.Fatal("the secret leaked")
			}
			if i := strings.LastIndexByte(token, '.'); i >= 0 && len(token)-i > 16 && strings.Count(token, ".") == 2 &&
				strings.Contains(string(out), token[i+1:]) && !strings.Contains(token[:i], token[i+1:]) {
				t.Fatal("the signature leaked")
			}
		}
	})
}

// FuzzVerifyClaims signs fuzzed header and claims JSON correctly (HMAC-SHA256
// from crypto/hmac, not golang-jwt) so the claim checks are explored past the
// signature, and compares the verdict with golang-jwt's own validation: a
// token golang-jwt refuses is never valid, and a valid one is never older
// than 10 minutes.
func FuzzVerifyClaims(f *testing.F) {
	claims := baseClaims()
	f.Add(`{"alg":"HS256","typ":"JWT"}`, string(modeltest.MustJSON(claims)), string(modeltest.MustJSON(metaFor(claims))), "get_order")
	f.Add(`{"alg":"HS256"}`, `{"iss":"agentarea","aud":["x","`+testInstance+`"],"iat":1796039988.5,"exp":1796040288,"protocol":"1.0"}`, `{}`, "")
	f.Add(`{"alg":"HS512","typ":"JWT"}`, `{"iss":"agentarea","nbf":1796040100,"iat":1796039988,"exp":1796040288}`, `{"agentarea/protocol":"1"}`, "t")
	f.Fuzz(func(t *testing.T, headerJSON, claimsJSON, metaJSON, tool string) {
		signing := base64.RawURLEncoding.EncodeToString([]byte(headerJSON)) + "." + base64.RawURLEncoding.EncodeToString([]byte(claimsJSON))
		mac := hmac.New(sha256.New, []byte(fuzzSecret))
		mac.Write([]byte(signing))
		token := signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
		var meta map[string]any
		_ = json.Unmarshal([]byte(metaJSON), &meta)
		ctx, _ := Verify(Input{Token: token, Secrets: [][]byte{[]byte(fuzzSecret)}, InstanceID: testInstance,
			ToolName: tool, Meta: meta, Now: testNow})
		if !verdicts[ctx.Verdict] || ctx.Verdict == model.VerdictUnverified || ctx.Verdict == model.VerdictAbsent {
			t.Fatalf("verdict %q with a secret", ctx.Verdict)
		}
		parsed, err := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return testNow }),
			jwt.WithLeeway(ClockSkew), jwt.WithAudience(testInstance), jwt.WithIssuer("agentarea"), jwt.WithIssuedAt(), jwt.WithExpirationRequired()).
			Parse(token, func(*jwt.Token) (any, error) { return []byte(fuzzSecret), nil })
		if ctx.Verdict == model.VerdictValid {
			if err != nil {
				t.Fatalf("valid, but golang-jwt says %v", err)
			}
			iat, _ := parsed.Claims.GetIssuedAt()
			if iat == nil || testNow.Sub(iat.Time) > MaxAge+ClockSkew {
				t.Fatalf("valid but issued at %v", iat)
			}
		}
		if ctx.Verdict == model.VerdictRejected && ctx.Steps[len(ctx.Steps)-1].Passed {
			t.Fatal("rejected with the run step passed")
		}
	})
}
