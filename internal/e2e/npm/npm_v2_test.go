package npm

// ocmem from npm on OpenCode 2: the twins of npm_test.go.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestV2NpmPluginConfig is TestNpmPluginConfig on OpenCode 2:
// `"plugin": [["ocmem@V", {…}]]` in opencode.json is all a user writes;
// OpenCode 2 installs it from the registry and it works.
func TestV2NpmPluginConfig(t *testing.T) {
	e, reg := e2e.NewNpmEnvWith(t, e2e.EnvOptions{V2: true})
	e.RememberDeploy()
	e.SetPlugins(e2e.PluginTuple("ocmem@"+e2e.NpmVersion, map[string]any{"maxInjectChars": 1200}))
	e.Ask("部署前要做什么?")
	e2e.AssertNothingLeft(t, e)
	reqs := reg.Requests()
	for _, want := range []string{"GET /ocmem", "GET /ocmem-" + e2e.NodePlatform()} {
		if !slices.Contains(reqs, want) {
			t.Errorf("the registry was not asked %q; it saw %v", want, reqs)
		}
	}
	// The released binary ran (its version), not one from PATH or the test's build.
	if log := e2e.ReadFileString(e.OcmemLog()); !strings.Contains(log, `"msg":"serve started","version":"`+e2e.NpmVersion+`"`) {
		t.Errorf("no ocmem serve %s started; ocmem log:\n%s", e2e.NpmVersion, e2e.Tail(log, 2000))
	}
	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) == 0 {
		t.Fatal("no agent request reached the model")
	}
	for _, name := range e2e.MemoryTools {
		if !agent[0].HasTool(name) {
			t.Errorf("the agent request does not offer %s (offers %v)", name, agent[0].ToolNames())
		}
	}
	found := false
	for _, u := range agent[0].UserMessages() {
		found = found || strings.Contains(u.Text(), e2e.DeployBody)
	}
	if !found {
		t.Errorf("the deploy memory's body did not reach the model")
	}
}

// TestV2NpmPluginCommand is TestNpmPluginCommand on OpenCode 2, whose
// command is `opencode plugin add ocmem@V`: it installs the package and
// registers it in the global config; the next run uses it.
func TestV2NpmPluginCommand(t *testing.T) {
	e, _ := e2e.NewNpmEnvWith(t, e2e.EnvOptions{V2: true})
	e.RememberDeploy()
	res := e.MustRun("plugin", "add", "ocmem@"+e2e.NpmVersion)
	t.Logf("opencode plugin add: %s", res.Stdout)
	e2e.AssertNothingLeft(t, e)
	var cfg []byte
	for _, name := range []string{"opencode.json", "opencode.jsonc"} {
		if b, err := os.ReadFile(filepath.Join(e.ConfigDir(), name)); err == nil {
			cfg = b
		}
	}
	t.Logf("global config: %s", cfg)
	if !strings.Contains(string(cfg), `ocmem@`+e2e.NpmVersion) {
		t.Fatalf("the global config does not name ocmem@%s:\n%s", e2e.NpmVersion, cfg)
	}
	e.Ask("部署前要做什么?")
	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) != 1 || !agent[0].HasTool("memory_recall") || !strings.Contains(string(agent[0].Raw), "DEPLOY-BODY") {
		t.Errorf("OpenCode 2 did not load ocmem after opencode plugin add")
	}
	// ocmem doctor finds the package where OpenCode 2 installed it
	// (<cache>/npm/<spec>/<time>/node_modules, not 1.x's packages/<spec>).
	cmd := exec.Command(e2e.Ocmem(t), "doctor")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "ok   plugin package: ocmem@"+e2e.NpmVersion+" in OpenCode's cache") {
		t.Errorf("ocmem doctor said:\n%s", out)
	}
}
