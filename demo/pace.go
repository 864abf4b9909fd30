package demo

import (
	"context"
	"math"
	"time"
)

// pace scales the scenario clock: every duration the demo waits is divided by
// the speed. Platform rules that toolscope checks against wall time (the
// 0.5 s relay rate, the token lifetime) are not scaled.
type pace struct{ speed float64 }

func newPace(speed float64) pace {
	if speed <= 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
		speed = 1
	}
	return pace{speed: speed}
}

// d is a scenario duration at this speed.
func (p pace) d(d time.Duration) time.Duration {
	return time.Duration(float64(d) / p.speed)
}

// sleep waits a scaled duration, or until ctx ends.
func (p pace) sleep(ctx context.Context, d time.Duration) error {
	return sleepFor(ctx, p.d(d))
}

// until waits until start plus the scaled offset at.
func (p pace) until(ctx context.Context, start time.Time, at time.Duration) error {
	return sleepFor(ctx, time.Until(start.Add(p.d(at))))
}

func sleepFor(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
