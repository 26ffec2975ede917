package v2

// ocmem registered twice, and a project install a team commits: the global
// install and `ocmem install --project` together load ocmem once, and the
// project install holds no path of the machine that made it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// onPath puts the test's ocmem binary first on the PATH of every run, as a
// teammate who installed ocmem has it.
func onPath(e *e2e.Env) {
	e.Vars = append(e.Vars, "PATH="+filepath.Dir(e2e.Ocmem(e.T))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// servesStarted counts the `ocmem serve` processes that started, from
// ocmem's log.
func servesStarted(t *testing.T, e *e2e.Env) int {
	t.Helper()
	b, err := os.ReadFile(e.OcmemLog())
	if err != nil {
		t.Fatalf("ocmem log: %v", err)
	}
	return strings.Count(string(b), `"msg":"serve started"`)
}

// doctorOutput is what `ocmem doctor` prints, whatever its exit status
// (it fails on a problem it finds).
func doctorOutput(t *testing.T, e *e2e.Env) string {
	t.Helper()
	cmd := exec.Command(e2e.Ocmem(t), "doctor")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// testInstalledTwice: ocmem installed globally and into the project; one
// run; the outline and the hard rule are in the system prompt once, and
// one serve answered.
func testInstalledTwice(t *testing.T, e *e2e.Env) {
	onPath(e)
	e.InstallOcmem()
	e.RunOcmem("install", "--project")
	e.RememberRule()
	unrelated := e.RememberUnrelated()

	e.Ask("hello")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) == 0 {
		t.Fatal("no agent request")
	}
	sys := reqs[0].SystemText()
	for _, want := range []string{"Memory outline (ocmem)", e2e.RuleBody, unrelated.ID} {
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
	testInstalledTwice(t, e2e.NewEnv(t))
}

func TestV2InstalledTwiceLoadsOnce(t *testing.T) {
	testInstalledTwice(t, e2e.NewEnvWith(t, e2e.EnvOptions{V2: true}))
}

// testProjectInstall: `ocmem install --project` alone, with ocmem on PATH
// as a teammate has it: OpenCode started in a subfolder loads it (the
// outline is in the system prompt), and neither opencode.json nor .opencode/ holds a path of this
// machine.
func testProjectInstall(t *testing.T, e *e2e.Env) {
	onPath(e)
	e.RunOcmem("install", "--project")
	e.RememberRule()
	// From a subfolder: the relative entry is resolved from opencode.json's
	// folder, not from where OpenCode starts.
	e.Dir = filepath.Join(e.Project, "sub")
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		t.Fatal(err)
	}

	e.Ask("hello")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) == 0 {
		t.Fatal("no agent request")
	}
	if sys := reqs[0].SystemText(); !strings.Contains(sys, "Memory outline (ocmem)") || !strings.Contains(sys, e2e.RuleBody) {
		t.Errorf("the project install did not load: no outline and rule in the system prompt:\n%s", sys)
	}
	machine := []string{filepath.Dir(e.Home), e2e.Ocmem(t), filepath.ToSlash(filepath.Dir(e.Home))}
	check := func(p string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range machine {
			if strings.Contains(string(b), m) {
				t.Errorf("%s holds the machine path %s:\n%s", p, m, b)
			}
		}
	}
	check(filepath.Join(e.Project, "opencode.json"))
	entries, err := os.ReadDir(filepath.Join(e.Project, ".opencode", "ocmem"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no plugin folder: %v", err)
	}
	for _, ent := range entries {
		check(filepath.Join(e.Project, ".opencode", "ocmem", ent.Name()))
	}
}

func TestProjectInstallLoads(t *testing.T) {
	testProjectInstall(t, e2e.NewEnv(t))
}

func TestV2ProjectInstallLoads(t *testing.T) {
	testProjectInstall(t, e2e.NewEnvWith(t, e2e.EnvOptions{V2: true}))
}
