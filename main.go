// Command toolscope is a terminal live monitor for AI-agent tool calls. The
// command line is package cli; this file only sets the memory limit and, for
// development, an optional CPU profile.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"toolscope/cli"
)

// softMemoryLimit is the Go heap size the collector keeps under when it
// can; the documented ceiling (512 MiB) leaves room above it for stacks and
// the runtime.
const softMemoryLimit = 384 << 20

// cpuProfileEnv names a file that receives a pprof CPU profile of the whole
// run, written when the command returns (README: Development).
const cpuProfileEnv = "TOOLSCOPE_CPUPROFILE"

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit makes the collector work harder near it, so the
		// process stays close to what it holds (see README: Memory ceiling).
		debug.SetMemoryLimit(softMemoryLimit)
	}
	stop := startCPUProfile(os.Getenv(cpuProfileEnv))
	code := cli.Run(os.Args[1:])
	stop()
	os.Exit(code)
}

// startCPUProfile profiles into path (nothing when path is empty) and
// returns the function that ends the profile.
func startCPUProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope: %s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
