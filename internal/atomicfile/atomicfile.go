// Package atomicfile is ocmem's one durable file write: a temp file in the
// same directory, written, synced and closed, then renamed over the file,
// and the directory synced. A crash leaves the old file or the new one,
// never a torn one.
//
//	err := atomicfile.Write(path, data, 0o644)   // ocmem's own files
//	_, err = atomicfile.Replace(path, data, 0o644) // a person's file: its links and mode kept
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Write replaces path with data, durably, with mode perm. The temp file's
// name starts with a dot and ends in .tmp ("."+base+".<digits>.tmp"), so a
// stray one is never loaded as a memory, and it is removed on any error.
// Each step's error says which step failed, since "no space left on device"
// means something else during the write than during the directory sync. A
// symlink at path is replaced by the file, not followed: ocmem never writes
// through a link in a memory root.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for content that write produces into the temp file,
// as a file assembled from pieces is written without joining them first.
// An error from write is returned as the write's.
func WriteFunc(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return writeFunc(path, perm, true, write)
}

// WriteUnsynced is Write without its syncs: the file is replaced as a
// whole (a reader sees the old file or the new one), but a crash of the
// machine may leave the old one, an empty one or none. It is for a file
// whose loss costs less than two syncs on every write, such as a
// session's log of given memories, which a lost copy only makes give its
// bodies again.
func WriteUnsynced(path string, data []byte, perm fs.FileMode) error {
	return writeFunc(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeFunc(path string, perm fs.FileMode, durable bool, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				// The write already failed; a close error adds nothing.
				_ = f.Close()
			}
			// Best effort: a temp file left behind starts with a dot and
			// is never loaded as a memory.
			_ = os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	if durable {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("sync temp file: %w", err)
		}
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err = os.Chmod(tmp, perm); err != nil {
		return fmt.Errorf("set mode of temp file: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename temp file into place: %w", err)
	}
	if !durable {
		return nil
	}
	if err := SyncDir(dir); err != nil {
		// The new file is in place; only its durability across a crash
		// is in doubt, and the error says so.
		return fmt.Errorf("written, but %w", err)
	}
	return nil
}

// ErrReadOnly is Replace's refusal of a file its owner may not write.
var ErrReadOnly = errors.New("read-only")

// Replace is Write for a file a person owns, such as their OpenCode
// config: when path is a symlink (a dotfiles repository's), the file it
// leads to is replaced and the link kept; an existing file keeps its
// permission bits (a config holding an API key stays 0600), and perm
// applies to a new one. A link that leads nowhere is refused, and nothing
// is written; so is a file its owner made read-only (0440): renaming over
// it would succeed, and the mode would say nothing had changed.
//
// A file with other hard links is written in place instead (inPlace):
// a rename would give path a new file and leave the other names with the
// old one. That write is synced but not atomic; the caller says it made
// it.
func Replace(path string, data []byte, perm fs.FileMode) (inPlace bool, err error) {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return false, fmt.Errorf("%s is a link that leads nowhere (%w); fix or remove the link", path, err)
		}
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file", target)
	case err == nil && fi.Mode().Perm()&0o200 == 0:
		return false, fmt.Errorf("%s is %w (mode %#o), so it is left as it is; make it writable (chmod u+w) and run this again",
			target, ErrReadOnly, fi.Mode().Perm())
	case err == nil && hardLinks(fi) > 1:
		return true, writeInPlace(target, data)
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	return false, Write(target, data, perm)
}

// writeInPlace rewrites an existing file through its own inode, so every
// hard link to it sees the new content.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s in place: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}

// SyncDir makes a rename or removal in dir durable. Windows cannot open a
// directory for syncing; there the rename itself is durable enough.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("sync directory: %w", serr)
	}
	if cerr != nil {
		return fmt.Errorf("close directory: %w", cerr)
	}
	return nil
}
