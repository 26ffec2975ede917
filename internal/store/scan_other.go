//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import (
	"io/fs"
	"os"
)

// dirHandle is a listed directory. On Windows, listing a directory returns
// each name's attributes, so DirEntry.Info costs no further system call.
type dirHandle struct{ entries []fs.DirEntry }

// openDir lists a directory; its names come sorted.
func openDir(path string, _ bool) (dirHandle, []string, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return dirHandle{}, nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return dirHandle{entries: entries}, names, nil
}

func (h dirHandle) close() {}

// lstat reports the i-th entry without following a symlink.
func (h dirHandle) lstat(i int, _ string) (lstatResult, error) {
	info, err := h.entries[i].Info()
	if err != nil {
		return lstatResult{}, err
	}
	return lstatResult{mode: info.Mode(), size: info.Size(), mtime: info.ModTime()}, nil
}
