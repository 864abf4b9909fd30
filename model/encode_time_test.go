package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// appendTime writes what time.Time's MarshalJSON writes of the time in UTC,
// over the years it accepts, with and without sub-seconds.
func TestAppendTimeAsMarshalJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lo := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	times := []time.Time{{}, time.Unix(lo, 0), time.Unix(hi, 999999999), time.Unix(0, 1), time.Unix(0, 100000000),
		time.Unix(-1, 0), time.Unix(-86400, 0), time.Unix(-86401, 5), time.Date(2000, 2, 29, 23, 59, 59, 0, time.UTC),
		time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 2, 28, 12, 0, 0, 0, time.UTC)}
	for d := int64(-800_000); d < 3_000_000; d += 7 { // every weekday of years 0-9999 and some of each side
		times = append(times, time.Unix(d*86400+d%86400, 0))
	}
	for n := 0; n < 200_000; n++ {
		ns := rng.Int64N(1e9)
		switch n % 4 {
		case 1:
			ns = ns / 1e6 * 1e6
		case 2:
			ns = 0
		}
		zone := time.FixedZone("z", rng.IntN(50000)-25000)
		times = append(times, time.Unix(lo+rng.Int64N(hi-lo), ns).In(zone))
	}
	for _, tm := range times {
		got, err := appendTime(nil, tm)
		want, wantErr := tm.UTC().MarshalJSON()
		if wantErr != nil && err != nil && err.Error() == marshalError(tm.UTC()).Error() {
			continue // out of range, the same error
		}
		if err != nil || wantErr != nil || string(got) != string(want) {
			t.Fatalf("appendTime(%v) = %s, %v; want %s, %v", tm, got, err, want, wantErr)
		}
	}
}
