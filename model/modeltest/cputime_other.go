//go:build !unix

package modeltest

import "time"

// CPUTime is not measured here; the cpu-ns/op figure is then meaningless.
func CPUTime() time.Duration { return 0 }
