//go:build !race

package decoder

import (
	"testing"

	"toolscope/model"
)

// The tap summarises every call's result: one pass, the text, the blocks and
// a copy of structuredContent for the event (18 allocations with
// encoding/json and the block-count map).
func TestApplyResultAllocations(t *testing.T) {
	result := []byte(resultCases[0])
	n := testing.AllocsPerRun(100, func() {
		var ev model.Event
		if ws := ApplyResult(&ev, result); len(ws) != 0 || ev.TextChars == 0 {
			t.Fatal("not summarised")
		}
	})
	if n > 5 {
		t.Errorf("ApplyResult of a small text result: %.0f allocations, want at most 5", n)
	}
}
