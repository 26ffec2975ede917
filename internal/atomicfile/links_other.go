//go:build !unix

package atomicfile

import "io/fs"

// hardLinks is 1 where the file's status does not count its names
// (Windows): a rename there replaces the name it is given.
func hardLinks(fs.FileInfo) uint64 { return 1 }
