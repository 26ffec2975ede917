//go:build unix

package engine

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a file into memory, read-only. The mapping is never
// undone: strings of a snapshot point into it for as long as the process
// may use them. A process maps at most one cache per engine (later loads
// start from the previous snapshot), and a cache is always replaced by
// rename, never rewritten in place, so the mapped bytes never change.
func mapFile(path string) ([]byte, error) {
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
	// A small cache is cheaper to read than to map (a mapping costs a
	// system call and page faults, and is never unmapped).
	if size < mapMin || int64(int(size)) != size {
		return os.ReadFile(path)
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

// mapMin is the smallest cache that is mapped rather than read; a variable
// so that tests can map small ones.
var mapMin int64 = 1 << 20
