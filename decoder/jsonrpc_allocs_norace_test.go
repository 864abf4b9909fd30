//go:build !race

package decoder

import (
	"encoding/json"
	"testing"
)

// The tap reads every call's envelope: one pass and one copy of the
// message, not encoding/json's validity pass, reflection and decode (24
// allocations before issue 12's fast envelope reader, 12 with a copy and a
// key string per member).
func TestParseMessagesAllocations(t *testing.T) {
	body := []byte(envelopeCases[0])
	n := testing.AllocsPerRun(100, func() {
		if _, _, err := ParseMessages(body); err != nil {
			t.Fatal(err)
		}
	})
	if n > 2 {
		t.Errorf("ParseMessages of a tools/call: %.0f allocations, want at most 2", n)
	}
}

// A tools/call's params: name and arguments in the same pass, _meta by the
// quick reader (21 allocations when encoding/json read the params first,
// 13 with a string per member key, 9 with encoding/json's target on the
// heap when it was not used).
func TestParseCallParamsAllocations(t *testing.T) {
	params := json.RawMessage(callParamsCases[0])
	n := testing.AllocsPerRun(100, func() {
		if _, err := ParseCallParams(params); err != nil {
			t.Fatal(err)
		}
	})
	if n > 8 {
		t.Errorf("ParseCallParams of a platform call: %.0f allocations, want at most 8", n)
	}
}

// Every request body gets the strict check: the walk builds no map for the
// few keys of an object, no copy of the body (9 allocations with maps,
// json.Valid and a string of the body).
func TestCheckStrictAllocations(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if CheckStrict(benchCallBody) != nil {
			t.Fatal("ambiguous")
		}
	})
	if n > 0 {
		t.Errorf("CheckStrict of a platform call: %.0f allocations, want none", n)
	}
}
