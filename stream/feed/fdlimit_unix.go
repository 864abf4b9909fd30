//go:build unix

package feed

import "syscall"

// openFileLimit is how many files the process may hold open (Go raised the
// soft limit to the hard one at start).
func openFileLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true
}
