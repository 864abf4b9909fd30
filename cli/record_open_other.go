//go:build !unix

package cli

import "os"

// openRecord opens --record FILE for writing.
func openRecord(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
}
