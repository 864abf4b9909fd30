//go:build !race

package decoder

import (
	"testing"

	"toolscope/model"
)

// The tap summarises every call's result: one pass, the text, the blocks and
// a copy of structuredContent for the event (18 allocations with
// encoding/json and the block-count map; 34 with isError, resultType and
// the replay flag, now 3).
func TestApplyResultAllocations(t *testing.T) {
	result := []byte(resultCases[0])
	n := testing.AllocsPerRun(100, func() {
		var ev model.Event
		if ws := ApplyResult(&ev, result); len(ws) != 0 || ev.TextChars == 0 {
			t.Fatal("not summarised")
		}
	})
	if n > 4 {
		t.Errorf("ApplyResult of a small text result: %.0f allocations, want at most 4", n)
	}
	flagged := []byte(`{"content":[{"type":"text","text":"ok"}],"isError":false,"resultType":"complete","_meta":{"agentarea/replayed":true}}`)
	if n := testing.AllocsPerRun(100, func() {
		var ev model.Event
		ApplyResult(&ev, flagged)
	}); n > 3 {
		t.Errorf("ApplyResult of a result with its flags: %.0f allocations, want at most 3", n)
	}
}
