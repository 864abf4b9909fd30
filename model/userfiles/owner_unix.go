//go:build unix

package userfiles

import (
	"io/fs"
	"syscall"
)

// ownerModes: unix mode bits say who may enter a directory.
const ownerModes = true

// ownerOf is the user id owning fi's file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
