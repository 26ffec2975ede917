package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissing runs a test that calls Missing in a child process, once with
// CI set and once without, and checks that it fails in the first and is
// skipped in the second.
func TestMissing(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Missing(t, "the thing is %s", "absent")
		return
	}
	for _, tc := range []struct {
		ci       string
		wantFail bool
		wantText string
	}{
		{"true", true, "--- FAIL: TestMissing"},
		{"1", true, "required under CI: the thing is absent"},
		{"", false, "--- SKIP: TestMissing"},
		{"false", false, "the thing is absent"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("CI=%q: failed = %v, want %v\n%s", tc.ci, failed, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.wantText) {
			t.Errorf("CI=%q: output lacks %q:\n%s", tc.ci, tc.wantText, out)
		}
	}
}
