package modeltest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The Node peers of the tests (the TypeScript MCP SDK, the MCP conformance
// suite, har-validator) are npm packages pinned in NodeDir (package.json,
// package-lock.json). .ci/run installs them with npm ci; NeedNode does the
// same when node_modules is missing or older than the lock.

var (
	nodeOnce sync.Once
	nodeBin  string
	nodeErr  error
)

// NeedNode returns the node binary once the locked packages are installed.
// Without node and npm the test skips, saying how to run it, except in CI
// (CI set), which runs everything.
func NeedNode(t testing.TB) string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	_, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		msg := "node and npm are not installed: install Node.js 20 or newer; the test then installs the pinned packages (npm ci in " + NodeDir() + ", as .ci/run does) and runs"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	nodeOnce.Do(func() { nodeBin, nodeErr = node, installNode() })
	if nodeErr != nil {
		t.Fatal(nodeErr)
	}
	return nodeBin
}

// installNode runs npm ci in NodeDir unless node_modules is as new as the
// lock. Test binaries of several packages run at once, so a lock file keeps
// two installs from deleting each other's node_modules.
func installNode() error {
	dir := NodeDir()
	unlock, err := lockDir(filepath.Join(dir, ".npm-ci.lock"), 5*time.Minute)
	if err != nil {
		return err
	}
	defer unlock()
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	if installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !installed.ModTime().Before(lock.ModTime()) {
		return nil
	}
	// Run in the directory itself: npm 11's --prefix misreads the lock.
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// lockDir creates path exclusively, waiting up to timeout for another
// holder to remove it; a lock older than timeout is taken as left behind
// by a killed run.
func lockDir(path string, timeout time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(timeout)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > timeout {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s held for over %v", path, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
