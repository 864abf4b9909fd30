//go:build !unix

package tap

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Without process groups the tap ends only the child it started, while the
// tap runs: nothing outlives the tap to end it should the tap be killed.
func ownProcessGroup(*exec.Cmd, syscall.Signal) {}

// endGroup ends the child pid: sig now, a kill at deadline.
func endGroup(pid int, sig syscall.Signal, deadline time.Time) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if p.Signal(sig) != nil { // only a kill can be sent here
		_ = p.Kill()
		return
	}
	time.Sleep(time.Until(deadline))
	_ = p.Kill()
}
