package tap

import "syscall"

// setParentDeathSignal asks the kernel to send sig to the child when the
// thread that started it exits (see startChild: the thread lives as long
// as the child).
func setParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) { attr.Pdeathsig = sig }
