package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// nodeDir holds the Node peers of the tests (package.json and its lock):
// har-validator for export --har, the TypeScript MCP SDK for mock.
const nodeDir = "testdata/node"

var (
	nodeOnce sync.Once
	nodeErr  error
)

// needNode skips the test where node is absent (saying how to run it), and
// installs the locked packages (npm ci) when .ci/run has not.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: install Node.js 20 and npm, then 'npm ci' in cli/testdata/node (.ci/run does) to run this test")
	}
	nodeOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", ".package-lock.json")); err == nil {
			return
		}
		// Run in the directory itself: npm 11's --prefix misreads the lock.
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = nodeDir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("npm ci: %s", out)
			nodeErr = err
		}
	})
	if nodeErr != nil {
		t.Fatalf("npm ci in %s: %v", nodeDir, nodeErr)
	}
}
