package decoder

import (
	"fmt"
	"math"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// RelaySimulator says which progress notifications of one call the platform
// relays as tool.progress events: the first one, then at most one per 0.5 s,
// and always one reporting progress >= total. The zero value is ready; use
// one per call.
type RelaySimulator struct {
	last    time.Time
	started bool
}

// Relay reports whether the notification seen at time at would be relayed,
// and records it when it is.
func (r *RelaySimulator) Relay(at time.Time, p jsonrpc.Progress) bool {
	if p.Done() || !r.started || at.Sub(r.last) >= model.RelayInterval {
		r.started = true
		r.last = at
		return true
	}
	return false
}

// ProgressChecker watches one call's notifications for the MCP rule that
// progress must increase with each one. The zero value is ready.
type ProgressChecker struct {
	last    float64
	started bool
}

// Check returns a progress_not_increasing warning when p does not exceed the
// previous progress of the call.
func (c *ProgressChecker) Check(p jsonrpc.Progress) *model.Warning {
	prev, seen := c.last, c.started
	c.last, c.started = p.Progress, true
	if seen && p.Progress <= prev {
		return &model.Warning{Code: model.WarnProgressNotIncreasing, Message: fmt.Sprintf(
			"progress %s does not increase on the previous %s", fmtNum(p.Progress), fmtNum(prev))}
	}
	return nil
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}
