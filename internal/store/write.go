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
// updates, which happen on reads and must not change a tracked file). A
// memory write also counts in the root's write generation
// (generation.go); a state update changes no memory and does not.
func (r Root) lock(update bool) (unlock func(), err error) {
	if err := r.ensure(update); err != nil {
		return nil, err
	}
	if err := r.checkInside(LockFile); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(r.Dir, LockFile))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s root: %w", r.Scope, err)
	}
	if update {
		r.bumpGeneration()
	}
	return func() {
		if update {
			r.bumpGeneration()
		}
		// Unlock fails only when the descriptor is already unusable; the
		// lock is released when it is closed, which Unlock does anyway,
		// so there is nothing left for the caller to do about it.
		_ = fl.Unlock()
	}, nil
}

// ensure creates the root directory with its .gitignore and .gitattributes.
func (r Root) ensure(update bool) error {
	if r.Dir == "" {
		return fmt.Errorf("no %s memory root is configured", r.Scope)
	}
	if err := r.CheckWritable(); err != nil {
		return err
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
	if err := r.checkInside(rel); err != nil {
		return false, err
	}
	if old, _, err := readRegular(p, int64(len(data))); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	return true, writeAtomic(p, data)
}

// WriteFileOver is WriteFile for a caller that has just read the file
// (old, nil when there was none): data is compared with old rather than
// read again, which at 100,000 memories saves reading a 10 MB ROOT.md
// twice per write. The caller holds the lock, so only a person's edit in
// between makes old stale, and WriteFile would race with that edit too.
func (r Root) WriteFileOver(rel string, old, data []byte) (changed bool, err error) {
	if old != nil && bytes.Equal(old, data) {
		return false, nil
	}
	p, err := r.Path(rel)
	if err != nil {
		return false, err
	}
	if err := r.checkInside(rel); err != nil {
		return false, err
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
	if err := r.checkInside(rel); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(p)); err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
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
// is never loaded as a memory, and it is removed on any error. Each step's
// error says which step failed, since "no space left on device" means
// something else during the write than during the directory sync.
func writeAtomic(path string, data []byte) (err error) {
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
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync temp file: %w", err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("set mode of temp file: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename temp file into place: %w", err)
	}
	if err := syncDir(dir); err != nil {
		// The new file is in place; only its durability across a crash
		// is in doubt, and the error says so.
		return fmt.Errorf("written, but %w", err)
	}
	return nil
}

// syncDir makes a rename or removal durable. Windows cannot open a directory
// for syncing; there the rename itself is durable enough.
func syncDir(dir string) error {
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
