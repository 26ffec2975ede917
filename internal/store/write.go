package store

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/ocmem/ocmem/internal/atomicfile"
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

// WriteFileFunc replaces a file of the root atomically with what write
// produces (atomicfile.WriteFunc), without comparing it with the file:
// the caller knows it changed. The caller holds the lock.
func (r Root) WriteFileFunc(rel string, write func(io.Writer) error) error {
	p, err := r.Path(rel)
	if err != nil {
		return err
	}
	if err := r.checkInside(rel); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFunc(p, 0o644, write)
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

// writeAtomic writes data to path durably (internal/atomicfile): a crash
// leaves either the old file or the new one.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }

// syncDir makes a rename or removal durable.
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }
