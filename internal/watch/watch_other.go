//go:build !linux

package watch

// subfolders lists the folders in dir that the loader reads.
func subfolders(dir string) []string { return readSubfolders(dir) }
