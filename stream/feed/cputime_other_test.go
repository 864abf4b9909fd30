//go:build !unix

package feed

import "time"

// cpuTime is not measured here; the events/cpu-s figure is then meaningless.
func cpuTime() time.Duration { return 0 }
