package feed

import (
	"math/rand/v2"
	"time"
)

// noRetry is the ReconnectStrategy given to r3labs/sse: its own loop would
// retry forever, whatever the error (a 401 included), without telling anyone,
// and with no Last-Event-ID of ours. It stops after the first attempt; the
// feed's loop decides what is retried and how.
type noRetry struct{}

func (noRetry) NextBackOff() time.Duration { return -1 } // backoff.Stop
func (noRetry) Reset()                     {}

// backoffDelay is the wait before reconnect attempt n (1-based): exponential
// from a base, capped, with "equal jitter" (half fixed, half random) so
// monitors restarted together do not reconnect in step.
func backoffDelay(n int, maxBackoff time.Duration) time.Duration {
	base := min(250*time.Millisecond, maxBackoff/4)
	if base <= 0 {
		base = time.Millisecond
	}
	d := maxBackoff
	if n < 30 {
		if e := base << (n - 1); e > 0 && e < maxBackoff {
			d = e
		}
	}
	half := d / 2
	return half + rand.N(d-half+1)
}
