package tap

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// child is the stdio server the tap runs, and what ends it. The child
// leads a process group of its own (a terminal's ^C reaches it once,
// forwarded by the tap), so its own children can be ended with it.
//
// Whatever ends the tap, the group ends too:
//   - the tap stops it (ctx ends, SIGTERM or SIGHUP): the group is sent
//     the signal, and SIGKILL after stopGrace;
//   - the child exits: whatever is left of its group is ended;
//   - the tap dies (a crash, SIGKILL): the watchdog, a second toolscope
//     process, sees the tap's end of a pipe close and ends the group
//     (SIGTERM, then SIGKILL after stopGrace); on Linux the child is also
//     sent a parent-death signal by the kernel.
type child struct {
	cmd      *exec.Cmd
	watchdog *watchdog // nil where none runs
	exited   chan struct{}
	exitAt   time.Time // set before exited is closed
	stopOnce sync.Once
}

// startChild starts cmd as the leader of a new process group, guarded by a
// watchdog where one can run, and reaps it when it exits.
func startChild(cmd *exec.Cmd) (*child, error) {
	c := &child{cmd: cmd, exited: make(chan struct{})}
	c.watchdog = startWatchdog()
	// With a watchdog to follow with SIGKILL, the kernel's parent-death
	// signal can be the polite one; without, it is the one that cannot
	// be ignored.
	deathSignal := syscall.SIGKILL
	if c.watchdog != nil {
		deathSignal = syscall.SIGTERM
	}
	ownProcessGroup(cmd, deathSignal)

	started := make(chan error, 1)
	go func() {
		// Linux sends the parent-death signal when the thread that started
		// the child exits, not the process: Go ends a thread whose goroutine
		// exits while locked to it. This goroutine keeps its thread, and no
		// other goroutine can take it, until the child has been reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait() // the exit status is read from ProcessState
		c.exitAt = time.Now()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		c.watchdog.release()
		return nil, err
	}
	c.watchdog.guard(cmd.Process.Pid)
	return c, nil
}

// signal passes sig on to the child alone, as a terminal's ^C would reach
// it without the tap.
func (c *child) signal(sig os.Signal) { _ = c.cmd.Process.Signal(sig) }

// stop ends the child's group: sig (SIGTERM, SIGHUP) now, SIGKILL to what
// is left after stopGrace. The watchdog is told, so that should the tap be
// gone before then, the group still gets no more than stopGrace in all.
func (c *child) stop(sig syscall.Signal) {
	c.stopOnce.Do(func() {
		deadline := time.Now().Add(stopGrace)
		c.watchdog.stopping()
		go endGroup(c.cmd.Process.Pid, sig, deadline)
	})
}

// release ends what is left of the child's group once the tap is done
// with it (the child has exited): the watchdog does it, so the tap need
// not wait out a grandchild's grace; without one, the tap does.
func (c *child) release() {
	if c.watchdog != nil {
		c.watchdog.release()
		return
	}
	endGroup(c.cmd.Process.Pid, syscall.SIGTERM, time.Now().Add(stopGrace))
}
