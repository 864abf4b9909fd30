package modeltest

import (
	"path/filepath"
	"runtime"
)

// Testdata is the absolute path of elem under the test data every package
// shares (model/modeltest/testdata: the recorded session, the hostile
// corpus, the Node peers), found from this file so it holds from any
// package's directory.
func Testdata(elem ...string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("modeltest: no caller information to find testdata")
	}
	return filepath.Join(append([]string{filepath.Dir(file), "testdata"}, elem...)...)
}

// SessionFile is the recorded session the replay, export and screenshot
// tests play: calls with progress, results, errors and warnings.
func SessionFile() string { return Testdata("session.jsonl") }

// NodeDir holds the Node peers of the tests (package.json and its lock).
func NodeDir() string { return Testdata("node") }
