//go:build unix

package snapfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// Map maps a file into memory, read-only. The mapping is never undone:
// what Open returns points into it for as long as the process may use it.
// The engine maps at most one load cache per engine (later loads start
// from the previous snapshot), and a snapshot file is always replaced by
// rename, never rewritten in place, so the mapped bytes never change.
func Map(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	// A small file is cheaper to read than to map (a mapping costs a
	// system call and page faults, and is never unmapped).
	if size < MapMin || int64(int(size)) != size {
		return os.ReadFile(path)
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

// MapMin is the smallest file that is mapped rather than read; a variable
// so that tests can map small ones.
var MapMin int64 = 1 << 20
