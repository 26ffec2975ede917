//go:build unix

package snapfile

import (
	"os"
	"sync"
	"unsafe"

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
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err == nil {
		mapped.Lock()
		mapped.spans = append(mapped.spans, span{addr(b), addr(b) + uintptr(len(b))})
		mapped.Unlock()
	}
	return b, err
}

// mapped is every mapping Map made (never undone), so that release can
// tell a mapped file's bytes from memory of the process's own.
var mapped struct {
	sync.Mutex
	spans []span
}

type span struct{ from, to uintptr }

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// release gives the whole pages of b back to the file's page cache when b
// lies in a mapping Map made: the process stops holding them, and a later
// read of b faults them in again from the cache, with the same bytes (the
// mapping is read-only and shared). Bytes that are not a mapping's (a
// file read, not mapped) are left alone; MADV_DONTNEED would zero them.
func release(b []byte) {
	if len(b) == 0 {
		return
	}
	lo, hi := addr(b), addr(b)+uintptr(len(b))
	in := false
	mapped.Lock()
	for _, s := range mapped.spans {
		in = in || s.from <= lo && hi <= s.to
	}
	mapped.Unlock()
	page := uintptr(os.Getpagesize())
	from, to := (lo+page-1)&^(page-1), hi&^(page-1)
	if !in || to <= from {
		return
	}
	_ = unix.Madvise(b[from-lo:to-lo], unix.MADV_DONTNEED) // only a hint
}

// MapMin is the smallest file that is mapped rather than read; a variable
// so that tests can map small ones.
var MapMin int64 = 1 << 20
