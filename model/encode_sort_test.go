package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedEntries orders keys as their bytes do, whether they differ in the
// first eight bytes or after them, at any map size (both sorts).
func TestSortedEntriesOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "a", "b", "\x00", "\xff", "agentarea/", "agentare", "é"}
	for round := 0; round < 2000; round++ {
		m := map[string]int{}
		for n := rng.IntN(30); len(m) < n; {
			k := ""
			for p := rng.IntN(4); p >= 0; p-- {
				k += alphabet[rng.IntN(len(alphabet))]
			}
			m[k] = len(m)
		}
		var want []string
		for k := range m {
			want = append(want, k)
		}
		slices.Sort(want)
		var got []string
		for _, e := range sortedEntries(nil, m) {
			if m[e.key] != e.value {
				t.Fatalf("entry %q holds %d, want %d", e.key, e.value, m[e.key])
			}
			got = append(got, e.key)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sortedEntries order %q, want %q", got, want)
		}
	}
}
