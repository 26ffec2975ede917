//go:build !unix

package store

import "os"

// openNoBlock opens a file for reading. Outside Unix there are no named
// pipes in the file system to block on.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
