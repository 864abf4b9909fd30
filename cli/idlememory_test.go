package cli

import "testing"

// Memory goes back once an interval is idle after a burst, once per burst:
// not while calls flow, not again while idle, and for a trickle of calls
// once per burstAllocated.
func TestIdleAfterBurst(t *testing.T) {
	const mib = 1 << 20
	w := idleWatch{last: 1000 * mib}
	at := uint64(1000 * mib)
	step := func(allocated uint64) bool {
		at += allocated
		return w.idleAfterBurst(at)
	}
	for i := range 10 { // a burst: 10 MiB each half second
		if step(10 * mib) {
			t.Fatalf("returned during the burst, after %d MiB", (i+1)*10)
		}
	}
	if !step(mib / 2) {
		t.Fatal("not returned once idle after 100 MiB")
	}
	for i := range 20 { // idle on: nothing more to return
		if step(mib / 4) {
			t.Fatalf("returned again %d intervals into the idle", i+1)
		}
	}
	returns := 0
	for range 200 { // a trickle: 0.5 MiB a half second (100 MiB), idle each time
		if step(mib / 2) {
			returns++
		}
	}
	if returns != 1 {
		t.Errorf("%d returns over a trickle of 100 MiB, want 1", returns)
	}
}
