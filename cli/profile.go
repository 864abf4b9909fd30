package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file that receives a pprof CPU profile of the whole
// run, written when the command returns (README: Development).
const cpuProfileEnv = "TOOLSCOPE_CPUPROFILE"

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
