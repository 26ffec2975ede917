//go:build unix

package store

import (
	"os"
	"syscall"
)

// openNoBlock opens a file for reading; O_NONBLOCK makes opening a named
// pipe return at once instead of waiting for a writer. It has no effect on
// reading a regular file.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
