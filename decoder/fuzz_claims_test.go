package decoder

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// FuzzVerifyClaims signs fuzzed header and claims JSON correctly (HMAC-SHA256
// from crypto/hmac, not golang-jwt) so the claim checks are explored past the
// signature, and compares the verdict with golang-jwt's own validation: a
// token golang-jwt refuses is never valid, and a valid one is never older
// than 10 minutes.
func FuzzVerifyClaims(f *testing.F) {
	claims := baseClaims()
	f.Add(`{"alg":"HS256","typ":"JWT"}`, string(mustJSON(claims)), string(mustJSON(metaFor(claims))), "get_order")
	f.Add(`{"alg":"HS256"}`, `{"iss":"agentarea","aud":["x","`+testInstance+`"],"iat":1796039988.5,"exp":1796040288,"protocol":"1.0"}`, `{}`, "")
	f.Add(`{"alg":"HS512","typ":"JWT"}`, `{"iss":"agentarea","nbf":1796040100,"iat":1796039988,"exp":1796040288}`, `{"agentarea/protocol":"1"}`, "t")
	f.Fuzz(func(t *testing.T, headerJSON, claimsJSON, metaJSON, tool string) {
		signing := base64.RawURLEncoding.EncodeToString([]byte(headerJSON)) + "." + base64.RawURLEncoding.EncodeToString([]byte(claimsJSON))
		mac := hmac.New(sha256.New, []byte(fuzzSecret))
		mac.Write([]byte(signing))
		token := signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
		var meta map[string]any
		_ = json.Unmarshal([]byte(metaJSON), &meta)
		ctx, _ := Verify(VerifyInput{Token: token, Secrets: [][]byte{[]byte(fuzzSecret)}, InstanceID: testInstance,
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
			if iat == nil || testNow.Sub(iat.Time) > MaxTokenAge+ClockSkew {
				t.Fatalf("valid but issued at %v", iat)
			}
		}
		if ctx.Verdict == model.VerdictRejected && ctx.Steps[len(ctx.Steps)-1].Passed {
			t.Fatal("rejected with the run step passed")
		}
	})
}
