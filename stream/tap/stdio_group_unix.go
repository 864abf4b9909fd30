//go:build unix

package tap

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup puts the child in a process group of its own, so a
// terminal's SIGINT reaches it once, forwarded by the tap, not twice, and
// so the group can be ended with the tap. On Linux the kernel also sends
// the child deathSignal when the tap dies.
func ownProcessGroup(cmd *exec.Cmd, deathSignal syscall.Signal) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr, deathSignal)
}

// groupPollEvery is how often endGroup looks whether the group is gone.
const groupPollEvery = 20 * time.Millisecond

// endGroup ends the process group pgid: sig (SIGTERM, SIGHUP) now, SIGKILL
// to what is left at deadline. It returns once the group is gone or killed.
func endGroup(pgid int, sig syscall.Signal, deadline time.Time) {
	if pgid <= 1 { // kill(-1) would signal every process the user owns
		return
	}
	if err := syscall.Kill(-pgid, sig); errors.Is(err, syscall.ESRCH) {
		return // nobody is left
	}
	for time.Now().Before(deadline) {
		time.Sleep(min(groupPollEvery, time.Until(deadline)))
		// A member that exited but is not reaped yet (its parent is gone:
		// init reaps it) still counts, and a SIGKILL does it no harm.
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
