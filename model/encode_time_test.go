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
	times := []time.Time{{}, time.Unix(lo, 0), time.Unix(hi, 999999999), time.Unix(0, 1), time.Unix(0, 100000000)}
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
		if err != nil || wantErr != nil || string(got) != string(want) {
			t.Fatalf("appendTime(%v) = %s, %v; want %s, %v", tm, got, err, want, wantErr)
		}
	}
}
