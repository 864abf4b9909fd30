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
