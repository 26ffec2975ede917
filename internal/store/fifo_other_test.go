//go:build !unix

package store_test

import "testing"

// mkfifo skips the test: there are no named pipes in the file system here.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skipf("no named pipes here for %s", path)
}
