package demo

import (
	"context"
	"math"
	"time"

	"toolscope/model"
)

// pace scales the scenario clock: every duration the demo waits is divided by
// the speed, and the platform's 0.5 s relay rule is applied in scenario
// time, so a faster run tells the same story (docs/commands/demo.md's scenario table)
// in less time. Token lifetimes keep their real values.
type pace struct {
	speed float64
	epoch time.Time
}

func newPace(speed float64) pace {
	if speed <= 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
		speed = 1
	}
	return pace{speed: speed, epoch: time.Now()}
}

// scenario is the scenario clock's reading at wall time t.
func (p pace) scenario(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(p.epoch)) * p.speed)
}

// d is a scenario duration at this speed.
func (p pace) d(d time.Duration) time.Duration {
	return time.Duration(float64(d) / p.speed)
}

// sleep waits a scaled duration, or until ctx ends.
func (p pace) sleep(ctx context.Context, d time.Duration) error {
	return model.Sleep(ctx, p.d(d))
}

// until waits until start plus the scaled offset at.
func (p pace) until(ctx context.Context, start time.Time, at time.Duration) error {
	return model.Sleep(ctx, time.Until(start.Add(p.d(at))))
}
