//go:build !race

package decoder

import (
	"strings"
	"testing"
)

// A long key is looked up, and a long value compared, by a digest written
// on the stack: neither the key nor its digest is copied to the heap.
func TestCrossIndexLookupAllocations(t *testing.T) {
	var b boundedMap
	key, value := strings.Repeat("t", 100), strings.Repeat("u", 200)
	b.put(key, [2]string{value, "1"})
	n := testing.AllocsPerRun(20, func() {
		prev, ok := b.get(key)
		if !ok || !sameShort(value, prev[0]) {
			t.Fatal("a long key or value was not found")
		}
	})
	if n > 0 {
		t.Errorf("%.0f allocations to look up a long key, want none", n)
	}
}
