package model

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends (then it returns ctx.Err()). Every source
// that paces itself (a feed's reconnect backoff, a replay's gaps, the demo's
// scenario clock) waits through it; it lives here, the one package they all
// import, rather than in a package of its own for ten lines.
func Sleep(ctx context.Context, d time.Duration) error {
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
