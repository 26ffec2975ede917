//go:build !unix

package engine

import "os"

// mapFile reads a file into memory (where mapping is not implemented).
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

var mapMin int64 // unused: nothing is mapped here
