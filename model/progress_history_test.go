package model

import "testing"

// keptProgress is which notifications (1...n) a call's history keeps, as a
// fixed array of maxPoints thinned by half would: the history grows its
// array in steps, and that must not change what it keeps.
func keptProgress(n int) []float64 {
	var kept []float64
	stride, skipped := 1, 0
	for i := 1; i <= n; i++ {
		if len(kept) > 0 && skipped+1 < stride {
			skipped++
			continue
		}
		skipped = 0
		if len(kept) == maxPoints {
			for j := 1; j < maxPoints/2; j++ {
				kept[j] = kept[2*j]
			}
			kept = kept[:maxPoints/2]
			stride *= 2
		}
		kept = append(kept, float64(i))
	}
	return kept
}

func TestProgressHistoryGrowsKeepingTheSamePoints(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(tapCall(0, "1"))
	held := map[int][]float64{} // snapshot's history, by notifications applied
	var snaps []*Snapshot
	for i := 1; i <= 300; i++ {
		s.Apply(tapProgress(i, "1", float64(i), false))
		snap := s.Snapshot()
		snaps = append(snaps, snap)
		var got []float64
		for _, pt := range snap.Calls[0].Progress.History() {
			got = append(got, pt.Progress)
		}
		held[i] = got
		want := keptProgress(i)
		if len(got) != len(want) || snap.Calls[0].Progress.NPoints != len(want) {
			t.Fatalf("after %d notifications: %d points (NPoints %d), want %d", i, len(got), snap.Calls[0].Progress.NPoints, len(want))
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("after %d notifications: point %d is %v, want %v", i, j, got[j], want[j])
			}
		}
	}
	for i, snap := range snaps {
		h := snap.Calls[0].Progress.History()
		for j, pt := range h {
			if pt.Progress != held[i+1][j] {
				t.Fatalf("the snapshot after %d notifications changed at point %d: %v, was %v", i+1, j, pt.Progress, held[i+1][j])
			}
		}
	}
}
