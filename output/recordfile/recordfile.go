// Package recordfile is the --record file: made new, never written through
// anything planted at its name, and rotated at a size into older parts
// beside it (docs/commands/README.md, Recordings).
//
// It replaces lumberjack, which this use cannot make safe: at each
// rotation it renames FILE and opens it again with O_CREATE|O_TRUNC,
// following a symbolic link planted at the name in between (a --record in
// a shared directory such as /tmp), it opens an existing FILE to append
// the same way, it names a part by the millisecond and a second part in
// that millisecond replaces the first, and its clean-up goroutine never
// ends. Its file creation cannot be configured. What is needed is small:
// every name is resolved in the directory opened once (an os.Root), every
// file is made with O_CREATE|O_EXCL (userfiles.CreateIn), and parts are
// removed on the writer's own goroutine.
package recordfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"toolscope/model/userfiles"
)

// File writes a recording to its path, rotated: path is always the newest
// part; when a write would take it past MaxBytes it is renamed to an
// older part (Parts) and a new file is made at path; the oldest parts past
// Keep are removed. Writes are not split: a part ends on a line's end when
// each write is whole lines (output.Writer's are). It has no goroutine.
type File struct {
	path     string
	root     *os.Root // path's directory, opened once
	name     string   // path's base
	maxBytes int64    // 0: never rotated
	keep     int

	// mu: a writer given up while its write hangs (output.Writer) closes
	// on another goroutine; Close waits for that write.
	mu       sync.Mutex
	f        *os.File
	size     int64
	lastPart time.Time // the newest part's stamp: the next is later
	err      error     // once set, every write fails with it
}

// beforeNewPart runs between moving a full part aside and making the new
// one: the moment a name could be planted (a test's hook).
var beforeNewPart = func() {}

// Create starts a recording at path: the file at path and its older parts
// (an earlier recording's) are removed, and path is made new, mode 0600.
// It refuses a path where anything but a regular file is (a symbolic link,
// a FIFO: the caller writes those as they are) or one of another user's.
func Create(path string, maxBytes int64, keep int) (*File, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	r := &File{path: path, root: root, name: name, maxBytes: maxBytes, keep: keep}
	if err := r.start(); err != nil {
		root.Close()
		return nil, err
	}
	return r, nil
}

func (r *File) start() error {
	if fi, err := r.root.Lstat(r.name); err == nil {
		if err := userfiles.CheckOwner(r.path, fi); err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%s): not rotated", r.path, fi.Mode().Type())
		}
		if err := r.root.Remove(r.name); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, part := range r.parts() {
		r.root.Remove(part)
	}
	f, err := userfiles.CreateIn(r.root, r.name)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %s", r.path, plantedWhileMaking)
	}
	r.f = f
	return err
}

const plantedWhileMaking = "a file or link appeared at this name while the recording was making it (planted by another user?): left alone, nothing written through it"

// Write writes p to the newest part, first rotating when p would take it
// past MaxBytes (a p larger than that gets a part of its own).
func (r *File) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return 0, r.err
	}
	if r.maxBytes > 0 && r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		if err := r.rotate(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate moves the full part aside and makes a new one at path. If path is
// no longer the file being written (removed, or something put in its place)
// or something appears at path before the new part is made, nothing there is
// touched and the recording stops, saying so.
func (r *File) rotate() error {
	written, err := r.f.Stat()
	if err != nil {
		return err
	}
	if at, err := r.root.Lstat(r.name); err != nil || !os.SameFile(written, at) {
		r.f.Close()
		return fmt.Errorf("%s is no longer the file this recording was writing (removed, or replaced: planted by another user?): left alone, nothing written through it; the recording stops here, its older parts kept", r.path)
	}
	if err := r.f.Close(); err != nil {
		return err
	}
	part := r.nextPartName()
	if err := r.root.Rename(r.name, part); err != nil {
		return fmt.Errorf("%s: moving the full part aside: %w; the recording stops here", r.path, err)
	}
	beforeNewPart()
	f, err := userfiles.CreateIn(r.root, r.name)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %s; the recording stops here, its parts kept (the last is %s)", r.path, plantedWhileMaking, part)
	}
	if err != nil {
		return err
	}
	r.f, r.size = f, 0
	r.prune()
	return nil
}

// nextPartName names the part being moved aside: the time now, or a
// millisecond past the newest part's when that is not later, so that no
// part replaces another and their names sort as they were written.
func (r *File) nextPartName() string {
	at := time.Now().UTC().Truncate(time.Millisecond)
	if !at.After(r.lastPart) {
		at = r.lastPart.Add(time.Millisecond)
	}
	for {
		name := PartName(r.name, at)
		if _, err := r.root.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			r.lastPart = at
			return name
		}
		at = at.Add(time.Millisecond)
	}
}

// prune removes the oldest parts past Keep. A removal that fails is left
// for the next rotation.
func (r *File) prune() {
	parts := r.parts()
	for len(parts) > r.keep {
		r.root.Remove(parts[0]) // unlinkat: a link is removed, never what it names
		parts = parts[1:]
	}
}

// parts are the names of path's older parts in its directory, oldest first.
func (r *File) parts() []string {
	d, err := r.root.Open(".")
	if err != nil {
		return nil
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil
	}
	return partsOf(r.name, entries)
}

// Close closes the newest part.
func (r *File) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.f != nil {
		err = r.f.Close()
		r.f = nil
	}
	if r.err == nil {
		r.err = fs.ErrClosed
	}
	r.root.Close()
	if errors.Is(err, fs.ErrClosed) {
		err = nil // closed by a rotation that stopped the recording
	}
	return err
}
