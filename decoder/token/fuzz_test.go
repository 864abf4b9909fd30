package token

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

const fuzzSecret = "fuzz-secret-0123456789abcdefghijklmnop"

var verdicts = map[string]bool{model.VerdictValid: true, model.VerdictRejected: true, model.VerdictUnverified: true, model.VerdictAbsent: true}

func FuzzVerifyContext(f *testing.F) {
	good, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, baseClaims()).SignedString([]byte(fuzzSecret))
	f.Add(good, string(mustJSON(metaFor(baseClaims()))), "get_order")
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
