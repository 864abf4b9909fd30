//go:build unix

package tap

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the child in a process group of its own, so a
// terminal's SIGINT reaches it once, forwarded by the tap, not twice.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
