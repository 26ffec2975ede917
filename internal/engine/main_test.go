package engine

import (
	"os"
	"testing"
)

// TestMain keeps the load cache and session logs of the tests out of the
// user's cache directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ocmem-engine-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("OCMEM_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
