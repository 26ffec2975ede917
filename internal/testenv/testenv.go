// Package testenv decides what a test does when something it needs from
// outside the module is absent: the shared evaluation sets and fixtures
// beside the checkout, or a program such as git or node.
//
// Outside CI such a test is skipped, so a contributor without ../shared can
// still run the suite. Under CI (CI=true, as every CI service sets it) the
// quality gates must never pass by not running, so the test fails instead:
//
//	if _, err := os.Stat(dir); err != nil {
//		testenv.Missing(t, "development set: %v", err)
//	}
package testenv

import (
	"os"
	"strconv"
	"testing"
)

// InCI reports whether the tests run under continuous integration, as the
// CI environment variable says.
func InCI() bool {
	ok, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ok
}

// Missing ends the test because something it needs is not there: it fails
// under CI and skips elsewhere, with the same message.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("required under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}
