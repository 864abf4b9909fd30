//go:build !race

package sse

import "testing"

// An event of a stream costs the copy of its data the callback may keep;
// its repeated event type is not copied again (2 allocations before).
func TestSSEEventAllocations(t *testing.T) {
	chunk := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
	events := 0
	p := NewParser(1<<20, func(Event) { events++ })
	n := testing.AllocsPerRun(100, func() { p.Feed(chunk) })
	if events == 0 || n > 1 {
		t.Errorf("%d events, %.0f allocations per event, want at most 1", events, n)
	}
}
