//go:build !unix

package reliability_test

import "errors"

// mkfifo: named pipes in the file system are a Unix thing.
func mkfifo(string) error { return errors.ErrUnsupported }
