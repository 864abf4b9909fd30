package hardening_test

import (
	"testing"
	"time"

	"toolscope/model"
)

// TestEvictionBoundsMemory: a monitor that runs for days keeps at most
// MaxFinishedCalls finished calls; the heap after many more calls than that
// stays where a full store puts it.
func TestEvictionBoundsMemory(t *testing.T) {
	const keep, total = 500, 5000
	s := model.NewStore(model.Options{MaxFinishedCalls: keep})
	at := time.Now().UTC()
	base := heapInuse()
	var atKeep uint64
	for i := 0; i < total; i++ {
		typicalCall(t, s, i, at.Add(time.Duration(i)*time.Second))
		if i == 2*keep {
			atKeep = heapInuse()
		}
	}
	end := heapInuse()
	snap := s.Snapshot()
	if len(snap.Calls) != keep || snap.Evicted != total-keep {
		t.Errorf("%d calls kept, %d evicted; want %d and %d", len(snap.Calls), snap.Evicted, keep, total-keep)
	}
	if first := snap.Calls[0]; first.ToolCallID != "call_00004500" {
		t.Errorf("the oldest kept call is %s, want the 4501st", first.ToolCallID)
	}
	t.Logf("heap after GC: %.1f MiB empty, %.1f MiB after %d calls, %.1f MiB after %d (%d kept)", mib(base), mib(atKeep), 2*keep, mib(end), total, keep)
	// Feed event ids are remembered apart from calls, up to 200,000 of them
	// (about 20 MiB, reached after ~33,000 calls of 6 feed events: 38 MiB
	// in all at 40,000 calls), so the heap grows a little past the full
	// store and then stops.
	if grew := int64(end) - int64(atKeep); grew > 16<<20 {
		t.Errorf("the heap grew by %.1f MiB after the store was full", float64(grew)/(1<<20))
	}
}
