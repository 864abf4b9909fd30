package decoder

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ (written by
// testdata/make_fuzz_seeds.py); `go test` runs them as regression cases.

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
			in := VerifyInput{Token: token, Secrets: secrets, InstanceID: testInstance, ToolName: tool, Meta: meta, Now: testNow}
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

func FuzzSummarizeResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"ok"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}],"structuredContent":{"a":1},"isError":false,"_meta":{"agentarea/replayed":true},"resultType":"complete"}`))
	f.Add([]byte(`{"content":[]}`))
	f.Fuzz(func(t *testing.T, result []byte) {
		s, ws := summarize(result)
		if s.TextChars < 0 || s.Offloaded != (s.TextChars > MaxTextChars) {
			t.Fatalf("text %d offloaded %v", s.TextChars, s.Offloaded)
		}
		if utf8.RuneCountInString(s.TextPreview) > previewChars || utf8.RuneCountInString(s.Error) > previewChars {
			t.Fatal("preview too long")
		}
		if s.StructuredContentDropped != (s.StructuredContentChars > MaxStructuredChars) {
			t.Fatal("dropped disagrees with the size")
		}
		if s.ResultType == "" {
			t.Fatal("no result type")
		}
		for _, w := range ws {
			if w.Code == "" || w.Message == "" {
				t.Fatalf("empty warning %+v", w)
			}
		}
		for _, img := range s.Images {
			if img.Size < 0 || (img.Size > MaxImageBytes && img.Problem == "") {
				t.Fatalf("image %+v", img)
			}
		}
		var ev model.Event
		s.ApplyTo(&ev)
		if len(ev.StructuredContent) > maxKeptStructuredBytes {
			t.Fatal("kept too much structured content")
		}
	})
}

func FuzzSoatContext(f *testing.F) {
	f.Add("X-Soat-Context-actor_external_id", "ana@example.com", "", "x-soat-context-ActorExternalId", "+5511999999999")
	f.Add("X-Acme-Context-plan", "pro", "X-Acme-Context-", "Authorization", "Bearer x")
	f.Fuzz(func(t *testing.T, name1, value1, prefix, name2, value2 string) {
		h := http.Header{name1: {value1}}
		h[name2] = append(h[name2], value2)
		bag, ws := SoatContext(h, prefix)
		p := prefix
		if p == "" {
			p = DefaultSoatPrefix
		}
		for k, v := range bag.Values {
			found := false
			for name, vals := range h {
				if model.EqualFoldASCII(name, p+k) && len(name) == len(p)+len(k) && name[len(p):] == k && vals[0] == v {
					found = true
				}
			}
			if !found {
				t.Fatalf("key %q=%q not from the headers %v", k, v, h)
			}
		}
		for k := range bag.Identity {
			if _, ok := bag.Values[k]; !ok || soatIdentityKey(k) == "" {
				t.Fatalf("identity key %q", k)
			}
		}
		for _, w := range ws {
			if w.Code == "" {
				t.Fatal("empty warning code")
			}
		}
		if _, err := SoatPrefix(prefix); err != nil && !strings.Contains(err.Error(), SoatPrefixEnv) {
			t.Fatalf("prefix error does not name the variable: %v", err)
		}
	})
}

var agentNameRE = regexp.MustCompile(`^mcp__[a-z0-9_-]+__[a-zA-Z0-9_-]*$`)

func FuzzQualifiedName(f *testing.F) {
	f.Add("My GitHub!", "get_order")
	f.Add("Constractio — инструменты сметчика", "estimate")
	f.Add("工具", "run")
	f.Fuzz(func(t *testing.T, instance, tool string) {
		got := QualifiedName(instance, tool)
		if len(got) > MaxAgentNameLen {
			t.Fatalf("%q is %d characters", got, len(got))
		}
		full := "mcp__" + serverLabel(instance) + "__" + ToolLabel(tool)
		if len(full) <= MaxAgentNameLen {
			if got != full || !agentNameRE.MatchString(got) {
				t.Fatalf("%q", got)
			}
		} else if len(got) != MaxAgentNameLen || !strings.HasPrefix(full, got[:MaxAgentNameLen-digestLen-1]) {
			t.Fatalf("cut name %q", got)
		}
		for i := 0; i < len(got); i++ {
			if !isNameChar(rune(got[i])) {
				t.Fatalf("%q holds %q", got, got[i])
			}
		}
		if QualifiedName(instance, tool) != got {
			t.Fatal("not deterministic")
		}
	})
}
