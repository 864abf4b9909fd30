package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiles of the whole run, written when the command returns (docs/development.md):
// a CPU profile, and a heap profile whose alloc_space says
// what the run allocated, by where.
const (
	cpuProfileEnv = "TOOLSCOPE_CPUPROFILE"
	memProfileEnv = "TOOLSCOPE_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that ends and writes them.
func startProfiles() func() {
	stopCPU := startCPUProfile(os.Getenv(cpuProfileEnv))
	memPath := os.Getenv(memProfileEnv)
	return func() {
		stopCPU()
		if memPath != "" {
			writeHeapProfile(memPath)
		}
	}
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

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		runtime.GC() // the profile is as of the last collection
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope: %s: %v\n", memProfileEnv, err)
	}
}
