package cli

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A burst of traffic leaves the heap at twice what it held at its busiest
// (the collector's goal), and an idle process runs no collection to shrink
// it: a tap keeping 10,000 calls after a run of 100,000 would stay at that
// size until the next burst. Once the process goes idle after a burst, one
// collection returns what is no longer live to the system.
const (
	idleCheckEvery = 500 * time.Millisecond
	// idleAllocated is at most what an idle half second allocates (the screen's
	// frames, a feed's keep-alives).
	idleAllocated = 1 << 20
	// burstAllocated is what must have been allocated since the last
	// return for another to be worth its collection.
	burstAllocated = 64 << 20
)

// ReturnMemoryWhenIdle starts the watcher; the binary calls it once (tests
// do not: a collection of the whole test process now and then would only
// blur their figures).
func ReturnMemoryWhenIdle() {
	go watchIdleMemory()
}

func watchIdleMemory() {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	allocated := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	w := idleWatch{last: allocated()}
	for range time.Tick(idleCheckEvery) {
		if w.idleAfterBurst(allocated()) {
			debug.FreeOSMemory()
			w.last = allocated() // the collection's own allocations are not traffic
		}
	}
}

// idleWatch decides, from the bytes allocated so far read every
// idleCheckEvery, when a burst has ended.
type idleWatch struct {
	last        uint64 // bytes allocated at the previous check
	sinceReturn uint64 // bytes allocated since the last return
}

// idleAfterBurst takes the bytes allocated so far and says whether to
// return memory now: the last interval was idle, after a burst.
func (w *idleWatch) idleAfterBurst(allocated uint64) bool {
	step := allocated - w.last
	w.last = allocated
	w.sinceReturn += step
	if step < idleAllocated && w.sinceReturn >= burstAllocated {
		w.sinceReturn = 0
		return true
	}
	return false
}
