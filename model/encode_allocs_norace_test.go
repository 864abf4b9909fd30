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

// The line itself (22 allocations with the reflective encoder).
const encodeLineMaxAllocs = 1

// The writer's path: the tap's tool.call (credential and context headers
// redacted, claims, meta) and tool.result appended to a reused buffer
// allocate nothing, nor does a line a terminal could not show as it is
// (bidi, C1, DEL): its text is rewritten as it is written, not copied.
func TestAppendLineAllocations(t *testing.T) {
	r := NewRedactor("X-Custom")
	hostile := realisticTapResult()
	hostile.TextPreview = "bidi \u202e and C1 \u009b and DEL \x7f"
	for _, c := range []struct {
		ev   Event
		want float64
	}{{realisticTapCall(), 0}, {realisticTapResult(), 0}, {hostile, 0}} {
		buf := make([]byte, 0, 8<<10)
		n := testing.AllocsPerRun(100, func() {
			var err error
			if buf, err = r.AppendLine(buf[:0], c.ev); err != nil {
				t.Fatal(err)
			}
		})
		if n != c.want {
			t.Errorf("AppendLine of a %s (%q): %.0f allocations, want %.0f", c.ev.Kind, c.ev.TextPreview, n, c.want)
		}
	}
}

// Redactor.Event copies the header map only when a value changes.
func TestRedactEventWithoutSecretsAllocatesNothing(t *testing.T) {
	ev := realisticTapCall()
	delete(ev.Headers, "Authorization")
	delete(ev.Headers, "X-Agentarea-Context")
	r := NewRedactor("X-Custom")
	n := testing.AllocsPerRun(100, func() {
		if out := r.Event(ev); len(out.Headers) != len(ev.Headers) {
			t.Fatal("headers lost")
		}
	})
	if n != 0 {
		t.Errorf("Redactor.Event without a secret header: %.0f allocations, want none", n)
	}
}

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
