package modeltest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binaries the tests run (toolscope itself, a go-sdk stdio server) are
// built once per test process, into one temporary directory.
var builds struct {
	sync.Mutex
	dir  string
	bins map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the main package pkg, an import path ("toolscope",
// "toolscope/stream/tap/testdata/stdioserver"), once per test process and
// returns the binary's path. A TestMain calls RemoveBinaries after the run.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	builds.Lock()
	if builds.bins == nil {
		builds.bins = map[string]*build{}
	}
	b := builds.bins[pkg]
	if b == nil {
		b = &build{}
		builds.bins[pkg] = b
	}
	builds.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func goBuild(pkg string) (string, error) {
	builds.Lock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "toolscope-test-bins-")
		if err != nil {
			builds.Unlock()
			return "", err
		}
		builds.dir = dir
	}
	dir := builds.dir
	builds.Unlock()
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = Testdata("..") // inside the module, from any package
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// RemoveBinaries deletes what Binary built.
func RemoveBinaries() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
}
