// Command toolscope is a terminal live monitor for AI-agent tool calls. The
// command line is package cli; this file only sets how the process keeps
// its memory, and serves as a stdio tap's watchdog when started as one.
package main

import (
	"os"
	"runtime/debug"

	"toolscope/cli"
	"toolscope/stream/tap"
)

// softMemoryLimit is the Go heap size the collector keeps under when it
// can; the documented ceiling (512 MiB) leaves room above it for stacks and
// the runtime.
const softMemoryLimit = 384 << 20

func main() {
	// Here, not in cli.Run, which tests call: only a binary whose entry
	// serves the watchdog may be started again as one.
	if tap.ServeWatchdog() {
		return
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit makes the collector work harder near it, so the
		// process stays close to what it holds (docs/security.md, "Memory ceiling").
		debug.SetMemoryLimit(softMemoryLimit)
	}
	cli.ReturnMemoryWhenIdle()
	os.Exit(cli.Run(os.Args[1:]))
}
