package ui

import "time"

// rateMeter turns the store's event count, sampled on frame ticks, into
// events per second over the last couple of seconds.
type rateMeter struct {
	times  [9]time.Time
	counts [9]int64
	n, end int // samples held; index after the newest
}

const rateEvery = 250 * time.Millisecond

func (r *rateMeter) sample(now time.Time, events int64) {
	if r.n > 0 {
		last := (r.end + len(r.times) - 1) % len(r.times)
		if now.Sub(r.times[last]) < rateEvery {
			return
		}
	}
	r.times[r.end], r.counts[r.end] = now, events
	r.end = (r.end + 1) % len(r.times)
	if r.n < len(r.times) {
		r.n++
	}
}

// perSecond is the rate between the oldest and newest samples held.
func (r *rateMeter) perSecond() float64 {
	if r.n < 2 {
		return 0
	}
	first := (r.end + len(r.times) - r.n) % len(r.times)
	last := (r.end + len(r.times) - 1) % len(r.times)
	dt := r.times[last].Sub(r.times[first]).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(r.counts[last]-r.counts[first]) / dt
}
