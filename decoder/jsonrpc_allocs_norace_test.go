//go:build !race

package decoder

import "testing"

// The tap reads every call's envelope: one pass and a copy of each member,
// not encoding/json's validity pass, reflection and decode (24 allocations
// before issue 12's fast envelope reader).
func TestParseMessagesAllocations(t *testing.T) {
	body := []byte(envelopeCases[0])
	n := testing.AllocsPerRun(100, func() {
		if _, _, err := ParseMessages(body); err != nil {
			t.Fatal(err)
		}
	})
	if n > 12 {
		t.Errorf("ParseMessages of a tools/call: %.0f allocations, want at most 12", n)
	}
}
