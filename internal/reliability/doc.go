// Package reliability holds ocmem's reliability and security tests, which
// exercise the real binary and several processes at once: concurrent serve
// processes and CLI calls on the same roots, writers killed with SIGKILL,
// a corpus of malformed stores, secrets on every write path. It has no
// code of its own; see docs/RELIABILITY.md for what is tested and the
// numbers, and run the long versions with OCMEM_LONG=1:
//
//	go test ./internal/reliability
//	OCMEM_LONG=1 go test -v ./internal/reliability
package reliability
