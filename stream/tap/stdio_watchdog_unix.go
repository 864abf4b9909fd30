//go:build unix

package tap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The watchdog is toolscope started again, in a process group of its own,
// with one end of a pipe as its stdin; the tap holds the other end. The tap
// writes the child's pid (its process group) and the grace as a line, and
// "stop" when it starts to stop the child; the watchdog waits for the pipe
// to close: when
// the tap is done with the child, or when the tap dies in any way, SIGKILL
// included, since the kernel closes a dead process's files. It then ends
// the child's group (SIGTERM, SIGKILL after the grace, counted from "stop"
// if it came) and exits.
//
// It runs only in a binary that asked for it (ServeWatchdog): any other
// program started with watchdogEnv would do its own work instead.

// watchdogEnv marks the process started as a watchdog.
const watchdogEnv = "TOOLSCOPE_STDIO_WATCHDOG"

// watchdogServed says ServeWatchdog was called and this was not the
// watchdog: starting this executable again reaches it.
var watchdogServed atomic.Bool

// ServeWatchdog runs this process as a stdio tap's watchdog, if it was
// started as one, and then returns true; otherwise it returns false at
// once. A program that runs stdio taps calls it first thing in its entry
// (main, a test binary's TestMain): without it no watchdog is started,
// and a program whose entry does not call it must not, since it would be
// started again as its whole self.
func ServeWatchdog() bool {
	if os.Getenv(watchdogEnv) == "" {
		watchdogServed.Store(true)
		return false
	}
	// It is in a group of its own; a signal meant for a terminal's
	// foreground group must not end it before its work is done.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadString('\n')
	if err != nil {
		return true // the tap went before its child started
	}
	var pgid int
	var grace time.Duration
	if n, _ := fmt.Sscan(line, &pgid, &grace); n != 2 || pgid <= 1 || grace < 0 {
		return true
	}
	var deadline time.Time
	for { // until the tap closes its end, or dies
		line, err := in.ReadString('\n')
		if line == stopLine && deadline.IsZero() {
			deadline = time.Now().Add(grace)
		}
		if err != nil {
			break
		}
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(grace)
	}
	endGroup(pgid, syscall.SIGTERM, deadline)
	return true
}

// stopLine tells the watchdog that the tap has started to stop the child.
const stopLine = "stop\n"

// watchdog is the tap's side of a running watchdog.
type watchdog struct {
	pipe *os.File
	once sync.Once
}

// startWatchdog starts the watchdog, or returns nil when it cannot run (the
// child then has only the parent-death signal, on Linux).
func startWatchdog() *watchdog {
	if !watchdogServed.Load() {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	r, w, err := os.Pipe() // close-on-exec: the child never holds the tap's end
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Args = []string{"toolscope (stdio watchdog)"}
	cmd.Env = append(os.Environ(), watchdogEnv+"=1")
	cmd.Stdin = r // stdout and stderr: /dev/null, never the MCP client's pipes
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil
	}
	go cmd.Wait() // reaped when it exits, after the tap is done
	return &watchdog{pipe: w}
}

// guard gives the watchdog the group to end, and its grace.
func (d *watchdog) guard(pgid int) {
	if d != nil {
		_, _ = fmt.Fprintf(d.pipe, "%d %d\n", pgid, stopGrace)
	}
}

// stopping tells the watchdog the grace period has started.
func (d *watchdog) stopping() {
	if d != nil {
		_, _ = d.pipe.WriteString(stopLine)
	}
}

// release closes the tap's end: the watchdog ends the group and exits.
func (d *watchdog) release() {
	if d != nil {
		d.once.Do(func() { d.pipe.Close() })
	}
}
