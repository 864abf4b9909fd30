//go:build !race

package model

import "testing"

// EncodeLine runs on the writer's goroutine for every event the tap emits:
// the event is encoded once, not encoded and then compacted and copied
// again as json.Marshal does with a Marshaler's output (issue 12).
func TestEncodeLineAllocations(t *testing.T) {
	call := oneOfEachKind()[0]
	n := testing.AllocsPerRun(100, func() {
		if _, err := EncodeLine(call); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations", n)
	if n > encodeLineMaxAllocs {
		t.Errorf("EncodeLine of a tool.call: %.0f allocations, want at most %d", n, encodeLineMaxAllocs)
	}
}

const encodeLineMaxAllocs = 22

// Every header of every call is judged secret or not: an ordinary one costs
// no allocation (strings.ToLower made one per header before issue 12).
func TestHeaderRedactionAllocations(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if RedactHeader("Mcp-Method", "tools/call") != "tools/call" || !Redactor.IsSecretHeader(Redactor{}, "X-Upstream-Token") {
			t.Fatal("wrong verdict")
		}
	})
	if n != 0 {
		t.Errorf("judging two headers: %.0f allocations, want none", n)
	}
}

// A header name outside ASCII is lowered by Unicode's rules: the Kelvin
// sign (U+212A) is a k, so "TO\u212aEN" is a token.
func TestCredentialLikeUnicodeName(t *testing.T) {
	if !credentialLike("X-To\u212aen") {
		t.Error("X-To\u212aen not judged a credential")
	}
}
