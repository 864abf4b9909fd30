//go:build !race

package decoder

import (
	"encoding/json"
	"testing"
)

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

// A tools/call's params: name and arguments in the same pass, _meta by the
// quick reader (21 allocations when encoding/json read the params first).
func TestParseCallParamsAllocations(t *testing.T) {
	params := json.RawMessage(callParamsCases[0])
	n := testing.AllocsPerRun(100, func() {
		if _, err := ParseCallParams(params); err != nil {
			t.Fatal(err)
		}
	})
	if n > 13 {
		t.Errorf("ParseCallParams of a platform call: %.0f allocations, want at most 13", n)
	}
}
