package decoder

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func benchInput(b *testing.B, secrets [][]byte) VerifyInput {
	claims := baseClaims()
	return VerifyInput{Token: sign(b, jwt.SigningMethodHS256, claims, []byte(testSecret)), Secrets: secrets,
		InstanceID: testInstance, ToolName: "get_order", Meta: metaFor(claims), Now: testNow}
}

// BenchmarkVerifyContext is the tap's per-call cost of a valid token.
func BenchmarkVerifyContext(b *testing.B) {
	in := benchInput(b, [][]byte{[]byte(testSecret)})
	defer reportCPUPerOp(b)()
	b.ReportAllocs()
	for b.Loop() {
		if c := VerifyContext(in); c.Verdict != "valid" {
			b.Fatal(c.Reason)
		}
	}
}

// BenchmarkVerifyContextRotation: three secrets, the last one verifies.
func BenchmarkVerifyContextRotation(b *testing.B) {
	in := benchInput(b, [][]byte{[]byte(otherSecret), []byte(strings.Repeat("z", 40)), []byte(testSecret)})
	defer reportCPUPerOp(b)()
	b.ReportAllocs()
	for b.Loop() {
		if c := VerifyContext(in); c.Verdict != "valid" {
			b.Fatal(c.Reason)
		}
	}
}

// BenchmarkVerifyContextUnverified is decode only (no secret).
func BenchmarkVerifyContextUnverified(b *testing.B) {
	in := benchInput(b, nil)
	defer reportCPUPerOp(b)()
	b.ReportAllocs()
	for b.Loop() {
		VerifyContext(in)
	}
}

// BenchmarkSummarizeResult: a typical result with 2 KB of text, a 100 KB
// PNG and 4 KB of structured content.
func BenchmarkSummarizeResult(b *testing.B) {
	rows := make([]any, 0, 100)
	for i := 0; i < 100; i++ {
		rows = append(rows, map[string]any{"id": i, "name": "row name"})
	}
	result := resultJSON([]map[string]any{textBlock(strings.Repeat("Order A-17 shipped. ", 100)), imageBlock("image/png", imageData(pngMagic, 100_000))},
		map[string]any{"structuredContent": map[string]any{"rows": rows}})
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := summarize(result); len(s.Images) != 1 {
			b.Fatal("no image")
		}
	}
}

// BenchmarkSummarizeResultText: a small text-only result, the common case.
func BenchmarkSummarizeResultText(b *testing.B) {
	result := resultJSON([]map[string]any{textBlock("Order A-17: shipped on 2026-11-29")}, nil)
	b.ReportAllocs()
	for b.Loop() {
		summarize(result)
	}
}

func BenchmarkSoatContext(b *testing.B) {
	h := http.Header{"X-Soat-Context-Session_id": {"sess_01"}, "X-Soat-Context-Actor_id": {"actor_01"},
		"X-Soat-Context-Actor_external_id": {"ext-1"}, "X-Soat-Context-Tenantid": {"acme"}, "Authorization": {"Bearer x"},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	b.ReportAllocs()
	for b.Loop() {
		SoatContext(h, DefaultSoatPrefix)
	}
}

// BenchmarkVerifyPlatformToken: a token as AgentArea mints it (no metadata,
// agent or end user), the tap's common case.
func BenchmarkVerifyPlatformToken(b *testing.B) {
	in := platformInput(b)
	defer reportCPUPerOp(b)()
	b.ReportAllocs()
	for b.Loop() {
		if c, _ := Verify(in); c.Verdict != "valid" {
			b.Fatal(c.Reason)
		}
	}
}

// reportCPUPerOp reports the process's CPU time per operation: on a machine
// shared with other work, wall-clock ns/op counts the time others had the
// core; CPU time does not (garbage collection included).
func reportCPUPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// platformInput is a call as AgentArea sends it (PlatformMeta, ContextClaims,
// SignContextToken), read as a tap reads _meta: through JSON text.
func platformInput(t testing.TB) VerifyInput {
	meta := PlatformMeta(CallContext{TaskID: NewUUID(), ToolCallID: NewUUID(), WorkspaceID: NewUUID()}, 7)
	token, err := SignContextToken(ContextClaims(testInstance, "get_order", meta, testNow.Add(-2*time.Second)), []byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return VerifyInput{Token: token, Secrets: [][]byte{[]byte(testSecret)}, InstanceID: testInstance,
		ToolName: "get_order", Meta: roundTrip(meta), Now: testNow}
}
