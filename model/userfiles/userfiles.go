// Package userfiles makes the files toolscope writes on its own account (a
// stdio tap's default recording, the `y` copy of a call) where no other
// user can plant or read them: in a directory of the user's own, mode
// 0700, checked before each use, each file new (O_EXCL, no symbolic link
// followed), mode 0600. CreateIn and CheckOwner serve files at a path the
// user names too (--record, output/recordfile).
package userfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// StateDir is toolscope's directory for sub ("" for its own) under the
// user's state directory: $XDG_STATE_HOME/toolscope, or
// ~/.local/state/toolscope. Create makes and checks it.
func StateDir(sub string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // the XDG spec ignores a relative path
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: %v (set XDG_STATE_HOME)", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "toolscope", sub), nil
}

// RuntimeDir is toolscope's directory for files of this login only, under
// $XDG_RUNTIME_DIR (the user's own, gone at logout); without one, StateDir
// of sub.
func RuntimeDir(sub string) (string, error) {
	if base := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(base) {
		return filepath.Join(base, "toolscope", sub), nil
	}
	return StateDir(sub)
}

// maxNames bounds the names Create tries (name, name-2, ...).
const maxNames = 1000

// Create makes a new file in dir, named name+ext or, when that is taken,
// name-2+ext and so on, mode 0600, and returns it open for writing with its
// path. dir is made (mode 0700) when missing and refused unless it is the
// user's own, not a symbolic link, and closed to others. A name already
// taken, by a file or a symbolic link, is never written through.
func Create(dir, name, ext string) (*os.File, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	root, err := openPrivate(dir)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	for i := 1; i <= maxNames; i++ {
		file := name + ext
		if i > 1 {
			file = name + "-" + strconv.Itoa(i) + ext
		}
		f, err := CreateIn(root, file)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, filepath.Join(dir, file), nil
	}
	return nil, "", fmt.Errorf("%s: %s%s and %d more names like it are taken", dir, name, ext, maxNames-1)
}

// CreateIn makes name in root: a new file, mode 0600, open for writing.
// Anything already at the name (a file, or a symbolic link planted there)
// is never written through: the error is then fs.ErrExist.
func CreateIn(root *os.Root, name string) (*os.File, error) {
	// Within a Root, O_CREATE|O_EXCL opens with O_NOFOLLOW: a link at the
	// name fails as an existing file would.
	return root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// CheckOwner refuses fi, found at path (by Lstat), when it belongs to
// another user than this one or root: a file or link someone else placed
// at a name the user chose (in /tmp, say) is not written through.
func CheckOwner(path string, fi fs.FileInfo) error {
	owner, ok := ownerOf(fi)
	if !ok || owner == os.Geteuid() || owner == 0 {
		return nil
	}
	return fmt.Errorf("%s belongs to user %d, not to you (%d): not written through, another user may have placed it there (remove it, or choose another name)", path, owner, os.Geteuid())
}

// openPrivate opens dir as a Root once it has checked that dir is a
// directory of the user's own, closed to others, and not a symbolic link.
// The checks are made on the directory opened, so it cannot be swapped
// between the check and the use.
func openPrivate(dir string) (*os.Root, error) {
	link, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if link.Mode()&fs.ModeSymlink != 0 {
		return nil, refusal(dir, "it is a symbolic link", "remove it: toolscope makes the directory itself")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	fi, err := root.Stat(".")
	if err == nil && !os.SameFile(link, fi) {
		err = refusal(dir, "it was replaced while being checked", "try again")
	}
	if err == nil {
		err = checkPrivate(dir, fi, os.Geteuid())
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// checkPrivate refuses fi (dir's) unless it is a directory owned by uid
// with no access for group or others.
func checkPrivate(dir string, fi fs.FileInfo, uid int) error {
	if !fi.IsDir() {
		return refusal(dir, "it is not a directory", "remove it")
	}
	if owner, ok := ownerOf(fi); ok && owner != uid {
		return refusal(dir, fmt.Sprintf("it belongs to user %d, not to you (%d)", owner, uid), "remove it, or point XDG_STATE_HOME elsewhere")
	}
	if perm := fi.Mode().Perm(); ownerModes && perm&0o077 != 0 {
		return refusal(dir, fmt.Sprintf("its mode is %04o: others may plant or read files in it", perm), "chmod 700 "+dir)
	}
	return nil
}

// refusal says why dir is not used, and what makes it usable.
func refusal(dir, why, fix string) error {
	return fmt.Errorf("%s is not a private directory: %s (%s)", dir, why, fix)
}
