package otlp

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkEmit is the cost a source pays per event with export on: calls
// as a tap and a feed see them (10 events each, oneCall), to a collector
// that answers. The linger is long: this is Emit alone (spans are made by
// the exporter's goroutine, about 50 µs each, beside the sources).
func BenchmarkEmit(b *testing.B) {
	c := newCollector(b)
	e, err := New(b.Context(), Config{URL: c.URL, Linger: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	evs := oneCall()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		id := strconv.Itoa(i)
		for _, ev := range evs {
			ev.TaskID, ev.IdempotencyKey, ev.Exchange = id, id, id
			e.Emit(ev)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
