//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openRecord opens --record FILE for writing without waiting: a FIFO that
// nobody has opened for reading is an error at once, not a hang before
// anything runs (a FIFO opened so is written through Go's poller).
func openRecord(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s is a FIFO nobody reads: start its reader first", path)
	}
	return f, err
}
