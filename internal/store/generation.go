package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Write generations
//
// A process that keeps a root's memories loaded (serve, or a CLI write that
// listed the root before taking the lock) must know whether another
// process wrote the root since it looked: writing compiled files from a
// stale view would drop that process's memory from them. Listing the root
// again under the lock would tell, but costs a scan of every file while
// every other writer waits. Instead the lock file carries a counter: Lock
// adds one to it once the lock is taken and one more before releasing it,
// so a write in progress and a writer killed mid-write are both seen as a
// change. A view taken when the counter read g is still current for a
// writer that, holding the lock, reads g+1.
//
// The counter is not synced to disk: after a crash no process holds a view
// from before it. It sits at genOffset, past the byte that the lock of
// Windows covers, and has a fixed width, so that a reader never needs a
// truncation to see a whole number. A counter that cannot be read is 0,
// which matches no view and costs only a reload.

const (
	genOffset = 16
	genWidth  = 20
)

// Generation returns the root's write counter (see above), or 0 when it
// cannot be read.
func (r Root) Generation() uint64 {
	if r.Dir == "" {
		return 0
	}
	f, err := os.Open(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, genWidth)
	if _, err := f.ReadAt(buf, genOffset); err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimLeft(string(buf), " "), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// bumpGeneration adds one to the root's write counter. The caller holds
// the lock. A failure leaves the counter as it was, or unreadable: either
// way readers reload at worst.
func (r Root) bumpGeneration() {
	p := filepath.Join(r.Dir, LockFile)
	n := r.Generation() + 1
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteAt(fmt.Appendf(nil, "%*d", genWidth, n), genOffset)
}
