package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRootElsewhere is wrapped by the error of a write refused because the
// root, or a folder inside it, is not where it is expected to be.
var ErrRootElsewhere = errors.New("not where ocmem expects it")

// CheckWritable reports why ocmem must not write to the root, or nil. A
// project root found from the working directory must be a real folder
// whose real path is the expected one: a repository's `.memory` that is a
// symlink (to `..`, to ~/.ssh, to another repository) or a Windows
// junction is refused, and used read-only at most. A root the user chose,
// and the global root, may be links. A missing root is fine: ocmem
// creates it as a folder.
func (r Root) CheckWritable() error {
	if r.Dir == "" || r.Scope != Project || r.Chosen {
		return nil
	}
	info, err := os.Lstat(r.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("project root: %w", err)
	}
	real, rerr := filepath.EvalSymlinks(r.Dir)
	want := r.Dir
	if parent, err := filepath.EvalSymlinks(filepath.Dir(r.Dir)); err == nil {
		want = filepath.Join(parent, filepath.Base(r.Dir))
	}
	link := info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0
	switch {
	case link || rerr == nil && real != want:
		target := real
		if rerr != nil {
			target, _ = os.Readlink(r.Dir)
		}
		return fmt.Errorf("refusing to write: the project root %s is a link to %s, %w (a cloned repository can ship such a link to make ocmem write elsewhere); nothing was written, and its memories are only read. "+
			"To write there, remove the link, or name the root yourself with --project or OCMEM_PROJECT", r.Dir, target, ErrRootElsewhere)
	case !info.IsDir():
		return fmt.Errorf("refusing to write: the project root %s is not a folder", r.Dir)
	}
	return nil
}

// checkInside refuses a write to rel when a folder between the root and
// the file is a link, or the file itself is a link that would be opened
// (the lock file): ocmem never walks a linked folder when it reads, and
// never writes through one. A memory file that is a link is replaced by
// an atomic rename, which replaces the link, not its target.
func (r Root) checkInside(rel string) error {
	if err := r.CheckWritable(); err != nil {
		return err
	}
	parts := strings.Split(rel, "/")
	p := r.Dir
	for i, part := range parts {
		p = filepath.Join(p, part)
		last := i == len(parts)-1
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		link := info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0
		if link && (!last || rel == LockFile) {
			target, _ := filepath.EvalSymlinks(p)
			return fmt.Errorf("refusing to write: %s in the %s root is a link to %s, %w; ocmem does not write through links inside a root, and nothing was written",
				strings.Join(parts[:i+1], "/"), r.Scope, target, ErrRootElsewhere)
		}
	}
	return nil
}
