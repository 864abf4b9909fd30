package token

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/model/modeltest"
)

func benchInput(b *testing.B, secrets [][]byte) Input {
	claims := baseClaims()
	return Input{Token: sign(b, jwt.SigningMethodHS256, claims, []byte(testSecret)), Secrets: secrets,
		InstanceID: testInstance, ToolName: "get_order", Meta: metaFor(claims), Now: testNow}
}

// BenchmarkVerifyContext is the tap's per-call cost of a valid token.
func BenchmarkVerifyContext(b *testing.B) {
	in := benchInput(b, [][]byte{[]byte(testSecret)})
	defer reportCPUPerOp(b)()
	b.ReportAllocs()
	for b.Loop() {
		if c := verifyContext(in); c.Verdict != "valid" {
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
		if c := verifyContext(in); c.Verdict != "valid" {
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
		verifyContext(in)
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

// verifyContext is Verify's context alone.
func verifyContext(in Input) model.Context {
	c, _ := Verify(in)
	return c
}

// reportCPUPerOp reports the process's CPU time per operation: on a machine
// shared with other work, wall-clock ns/op counts the time others had the
// core; CPU time does not (garbage collection included).
func reportCPUPerOp(b *testing.B) func() {
	start := modeltest.CPUTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(modeltest.CPUTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// platformInput is a call as AgentArea sends it (its agentarea/* keys,
// Claims, Sign), read as a tap reads _meta: through JSON text.
func platformInput(t testing.TB) Input {
	task, call := uuid.NewString(), uuid.NewString()
	meta := map[string]any{jsonrpc.MetaProtocol: ProtocolMajor, jsonrpc.MetaTaskID: task, jsonrpc.MetaToolCallID: call,
		jsonrpc.MetaWorkspaceID: uuid.NewString(), jsonrpc.MetaIdempotencyKey: task + ":" + call}
	token, err := Sign(Claims(testInstance, "get_order", meta, testNow.Add(-2*time.Second)), []byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return Input{Token: token, Secrets: [][]byte{[]byte(testSecret)}, InstanceID: testInstance,
		ToolName: "get_order", Meta: roundTrip(meta), Now: testNow}
}
