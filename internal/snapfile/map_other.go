//go:build !unix

package snapfile

import "os"

// Map reads a file into memory (where mapping is not implemented).
func Map(path string) ([]byte, error) { return os.ReadFile(path) }

// MapMin is unused here: nothing is mapped.
var MapMin int64

// release does nothing: there is no mapping to give pages back from.
func release([]byte) {}
