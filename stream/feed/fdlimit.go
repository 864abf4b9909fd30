package feed

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
)

// outOfFilesSaid: the whole account of running out of file descriptors is
// given once a process, by the first feed to meet it; the rest say it short.
var outOfFilesSaid atomic.Bool

// outOfFiles is err as a feed says it when the process cannot open a socket
// for lack of file descriptors (the limit named, and, once, how to raise it);
// any other err as it is.
func outOfFiles(err error) error {
	if !errors.Is(err, syscall.EMFILE) {
		return err
	}
	short := "out of file descriptors"
	if soft, ok := openFileLimit(); ok {
		short = fmt.Sprintf("out of file descriptors: the limit is %d open files", soft)
	}
	if !outOfFilesSaid.CompareAndSwap(false, true) {
		return errors.New(short)
	}
	return errors.New(short + " (ulimit -n), and each feed holds a connection: feeds that cannot connect retry as others end." +
		" Raise the limit where toolscope starts (ulimit -n 4096; the hard limit, ulimit -Hn, bounds it), or watch fewer feeds at once")
}
