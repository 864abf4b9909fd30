package model

import (
	"math/rand/v2"
	"testing"
)

// plainRun stops at the first byte the table does not call plain, at every
// offset and length.
func TestPlainRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 100_000; n++ {
		b := make([]byte, rng.IntN(20))
		for k := range b {
			b[k] = "ab<\x7f\xe2 "[rng.IntN(6)]
		}
		i := rng.IntN(len(b) + 1)
		for _, table := range []*[256]bool{&jsonPlain, &termPlain, &rawStringPlain, &rawTermPlain} {
			want := i
			for want < len(b) && table[b[want]] {
				want++
			}
			if got := plainRun(string(b), i, table); got != want {
				t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
			}
			if got := plainRun(b, i, table); got != want {
				t.Fatalf("plainRun([]byte %q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
}
