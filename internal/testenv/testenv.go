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
	"os/exec"
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

// IsolatedGit readies t to run git: without git it is Missing; the user's
// and the system's git config are set aside for the test, and commits get
// a fixed author and committer, so that what a test's repository holds
// does not depend on the machine.
func IsolatedGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		t.Setenv(k, v)
	}
}

// Git runs git in dir with a fixed identity and returns its output, or
// fails the test with what git said.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
