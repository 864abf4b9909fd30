package model

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// plainWords passes a word exactly when the tables call its every byte
// plain: every byte value at every position, and random words.
func TestPlainWordsAgreesWithTables(t *testing.T) {
	var b [8]byte
	check := func(w uint64) {
		binary.LittleEndian.PutUint64(b[:], w)
		for _, c := range []struct {
			table *[256]bool
			extra uint64
		}{{&jsonPlain, '\\' * ones}, {&termPlain, 0x7f * ones}} {
			all := true
			for _, x := range b {
				all = all && c.table[x]
			}
			if got := plainWords(string(b[:]), 0, c.extra) == 8; got != all {
				t.Fatalf("plainWords(%q, %#x) passes the word: %v, want %v", b, c.extra, got, all)
			}
		}
	}
	for k := 0; k < 8; k++ {
		for v := 0; v < 256; v++ {
			for _, fill := range []uint64{'a', ' ', '~', 0x7f, '!', 0x7e, 0x80, 0} {
				check(fill*ones&^(0xff<<(8*k)) | uint64(v)<<(8*k))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300_000; n++ {
		w := rng.Uint64()
		check(w)
		check(w &^ highs)
		check(w&^highs | 0x2020202020202020)
	}
}

// plainWords stops at the first word holding a byte that is not plain.
func TestPlainWords(t *testing.T) {
	for _, c := range []struct {
		s       string
		i, want int
	}{{"", 0, 0}, {"abcdefg", 0, 0}, {"abcdefgh", 0, 8}, {"abcdefghijklmnopq", 0, 16},
		{"abcdefgh<ijklmnop", 0, 8}, {"abc<defghijklmnop", 0, 0}, {"xabcdefgh", 1, 9}, {"abcdefgh\x7f", 0, 8}} {
		if got := plainWords(c.s, c.i, 0x7f*ones); got != c.want {
			t.Errorf("plainWords(%q, %d) = %d, want %d", c.s, c.i, got, c.want)
		}
	}
}

// The raw reader's terminal-safe table is the string writer's: plainWords
// serves both.
func TestRawTermPlainIsTermPlain(t *testing.T) {
	if rawTermPlain != termPlain {
		t.Error("rawTermPlain and termPlain differ")
	}
}
