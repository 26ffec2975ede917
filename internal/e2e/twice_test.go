package e2e

// ocmem registered twice, and a project install a team commits: the global
// install and `ocmem install --project` together load ocmem once, and the
// project install holds no path of the machine that made it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// onPath puts the test's ocmem binary first on the PATH of every run, as a
// teammate who installed ocmem has it.
func onPath(e *Env) {
	e.Vars = append(e.Vars, "PATH="+filepath.Dir(Ocmem(e.T))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// servesStarted counts the `ocmem serve` processes that started, from
// ocmem's log.
func servesStarted(t *testing.T, e *Env) int {
	t.Helper()
	b, err := os.ReadFile(e.OcmemLog())
	if err != nil {
		t.Fatalf("ocmem log: %v", err)
	}
	return strings.Count(string(b), `"msg":"serve started"`)
}

// doctorOutput is what `ocmem doctor` prints, whatever its exit status
// (it fails on a problem it finds).
func doctorOutput(t *testing.T, e *Env) string {
	t.Helper()
	cmd := exec.Command(Ocmem(t), "doctor")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// testInstalledTwice: ocmem installed globally and into the project; one
// run; the outline and the hard rule are in the system prompt once, and
// one serve answered.
func testInstalledTwice(t *testing.T, e *Env) {
	onPath(e)
	e.InstallOcmem()
	e.RunOcmem("install", "--project")
	e.rememberRule()
	unrelated := e.rememberUnrelated()

	e.Ask("hello")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) == 0 {
		t.Fatal("no agent request")
	}
	sys := reqs[0].SystemText()
	for _, want := range []string{"Memory outline (ocmem)", ruleBody, unrelated.ID} {
		if n := strings.Count(sys, want); n != 1 {
			t.Errorf("%q is %d times in the system prompt, want once:\n%s", want, n, sys)
		}
	}
	if n := servesStarted(t, e); n != 1 {
		t.Errorf("%d ocmem serve processes started, want 1", n)
	}
	// Doctor names the double registration and how to end it.
	out := doctorOutput(t, e)
	if !strings.Contains(out, "registered twice") || !strings.Contains(out, "ocmem uninstall --project") {
		t.Errorf("doctor does not name the double registration:\n%s", out)
	}
}

func TestInstalledTwiceLoadsOnce(t *testing.T) {
	testInstalledTwice(t, NewEnv(t))
}

func TestV2InstalledTwiceLoadsOnce(t *testing.T) {
	testInstalledTwice(t, NewEnvWith(t, EnvOptions{V2: true}))
}
