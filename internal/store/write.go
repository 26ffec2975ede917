package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/gofrs/flock"
)

// Lock takes the root's cross-process write lock, creating the root if
// needed and giving it ocmem's .gitignore and .gitattributes blocks (see
// gitfiles.go). Call the returned function to release it. Readers do not
// lock: every write is an atomic rename, so a reader sees the old file or
// the new one, never a torn one.
func (r Root) Lock() (unlock func(), err error) {
	return r.lock(true)
}

// lock takes the write lock; update says whether existing git files may be
// brought up to date (memory writes) or only missing ones created (state
// updates, which happen on reads and must not change a tracked file).
func (r Root) lock(update bool) (unlock func(), err error) {
	if err := r.ensure(update); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(r.Dir, LockFile))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s root: %w", r.Scope, err)
	}
	return func() { fl.Unlock() }, nil
}

// ensure creates the root directory with its .gitignore and .gitattributes.
func (r Root) ensure(update bool) error {
	if r.Dir == "" {
		return fmt.Errorf("no %s memory root is configured", r.Scope)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("create %s root: %w", r.Scope, err)
	}
	if err := r.ensureGitFiles(update); err != nil {
		return fmt.Errorf("%s root: %w", r.Scope, err)
	}
	return nil
}

// WriteFile atomically replaces a file of the root (relative, slash path).
// Unchanged content is not rewritten, so compiled files keep their mtime and
// git sees nothing. The caller holds the lock.
func (r Root) WriteFile(rel string, data []byte) (changed bool, err error) {
	p, err := r.Path(rel)
	if err != nil {
		return false, err
	}
	// A file that is not regular or is larger than data differs from it;
	// reading no more than that keeps a named pipe or a huge file from
	// blocking or filling memory.
	if old, _, err := readRegular(p, int64(len(data))); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	return true, writeAtomic(p, data)
}

// Remove deletes a file of the root. The caller holds the lock.
func (r Root) Remove(rel string) error {
	p, err := r.Path(rel)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	syncDir(filepath.Dir(p))
	return nil
}

// Exists reports whether a file of the root exists.
func (r Root) Exists(rel string) bool {
	p, err := r.Path(rel)
	if err != nil {
		return false
	}
	_, err = os.Lstat(p)
	return err == nil
}

// writeAtomic writes data to path through a temp file in the same directory:
// write, fsync, close, rename, fsync the directory. A crash leaves either the
// old file or the new one; the temp file name starts with a dot so a stray one
// is never loaded as a memory, and it is removed on any error.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename or removal durable. Windows cannot open a directory
// for syncing; there the rename itself is durable enough.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
