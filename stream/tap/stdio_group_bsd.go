//go:build unix && !linux

package tap

import "syscall"

// setParentDeathSignal: only Linux has a parent-death signal; the
// watchdog ends the child's group here.
func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
