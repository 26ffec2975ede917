package npm

// ocmem installed the OpenCode way: the release tool builds the npm
// packages, a registry on 127.0.0.1 serves them, and OpenCode installs
// "ocmem@V" by name from it into its own cache, with the platform package
// as an optional dependency, and loads the plugin from there.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
	"github.com/ocmem/ocmem/plugin"
)

// assertFromNpm checks that OpenCode installed ocmem@NpmVersion from the
// local registry into its cache and that the plugin ran the platform
// package's binary from there; then that the turn offered the four tools
// and the deploy memory's body reached the model.
func assertFromNpm(t *testing.T, e *e2e.Env, reg *e2e.Registry) {
	t.Helper()
	nm := filepath.Join(e.Home, ".cache", "opencode", "packages", "ocmem@"+e2e.NpmVersion, "node_modules")
	src, err := os.ReadFile(filepath.Join(nm, "ocmem", "plugin.js"))
	if err != nil {
		t.Fatalf("ocmem is not in OpenCode's cache: %v", err)
	}
	if !bytes.Equal(src, plugin.Source) {
		t.Error("the cached plugin.js is not the plugin as shipped")
	}
	exe := filepath.Join(nm, "ocmem-"+e2e.NodePlatform(), "bin", "ocmem")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if st, err := os.Stat(exe); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0) {
		t.Fatalf("platform binary %s: %v (mode %v)", exe, err, st)
	}
	if logs := e.Logs(); !strings.Contains(logs, "loaded (serve: "+exe+",") {
		t.Errorf("the plugin did not load from the cache running %s; OpenCode's log has:\n%s", exe, grepLines(logs, "ocmem"))
	}
	reqs := reg.Requests()
	t.Logf("the registry saw %v", reqs)
	for _, want := range []string{
		"GET /ocmem", "GET /ocmem/-/ocmem-" + e2e.NpmVersion + ".tgz",
		"GET /ocmem-" + e2e.NodePlatform(), "GET /ocmem-" + e2e.NodePlatform() + "/-/ocmem-" + e2e.NodePlatform() + "-" + e2e.NpmVersion + ".tgz",
	} {
		if !slices.Contains(reqs, want) {
			t.Errorf("the registry was not asked %q; it saw %v", want, reqs)
		}
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
	if got := agent[0].LastUserText(); !strings.Contains(got, e2e.DeployBody) {
		t.Errorf("the deploy memory's body did not reach the model; user message:\n%s", got)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestNpmPluginConfig: `"plugin": [["ocmem@V", {…}]]` in opencode.json is
// all a user writes; OpenCode installs it from the registry and it works.
func TestNpmPluginConfig(t *testing.T) {
	e, reg := e2e.NewNpmEnv(t)
	e.RememberDeploy()
	e.SetPlugins(e2e.PluginTuple("ocmem@"+e2e.NpmVersion, map[string]any{"maxInjectChars": 1200}))
	e.Ask("部署前要做什么?")
	assertFromNpm(t, e, reg)
}

// TestNpmPluginCommand: `opencode plugin ocmem@V -g` installs it and
// registers it in the global config; the next run uses it.
func TestNpmPluginCommand(t *testing.T) {
	e, reg := e2e.NewNpmEnv(t)
	e.RememberDeploy()
	e.MustRun("plugin", "ocmem@"+e2e.NpmVersion, "-g")
	var cfg []byte
	for _, name := range []string{"opencode.json", "opencode.jsonc"} {
		if b, err := os.ReadFile(filepath.Join(e.ConfigDir(), name)); err == nil {
			cfg = b
		}
	}
	if !bytes.Contains(cfg, []byte(`"ocmem@`+e2e.NpmVersion+`"`)) {
		t.Fatalf("the global config does not name ocmem@%s:\n%s", e2e.NpmVersion, cfg)
	}
	e.Ask("部署前要做什么?")
	assertFromNpm(t, e, reg)
}

// npx runs `npx --yes args…` in e.Dir with e's environment and returns
// its combined output; a failure fails the test unless allowFail.
func npx(t *testing.T, e *e2e.Env, allowFail bool, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2e.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npx", append([]string{"--yes"}, args...)...)
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	e.Record(fmt.Sprintf("$ npx --yes %q (err=%v)\n%s", args, err, out))
	if err != nil && !allowFail {
		t.Fatalf("npx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestNpxInstall: `npx ocmem@V install` registers the pinned package in the
// global config (and says why it leaves the git merge driver alone), the
// next run loads it from OpenCode's cache, and `npx ocmem@V doctor` finds
// it there.
func TestNpxInstall(t *testing.T) {
	e, reg := e2e.NewNpmEnv(t)
	e.RememberDeploy()
	out := npx(t, e, false, "ocmem@"+e2e.NpmVersion, "install")
	for _, want := range []string{"registered ocmem@" + e2e.NpmVersion + " in " + filepath.Join(e.ConfigDir(), "opencode.json"),
		"git merge driver not registered: this ocmem runs from npx's cache",
		"`npx ocmem@" + e2e.NpmVersion + " doctor` checks the setup"} {
		if !strings.Contains(out, want) {
			t.Errorf("npx ocmem install said:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "PATH") {
		t.Errorf("npx ocmem install gives advice about PATH, where npx's cache does not belong:\n%s", out)
	}
	if cfg, _ := os.ReadFile(filepath.Join(e.ConfigDir(), "opencode.json")); !bytes.Contains(cfg, []byte(`["ocmem@`+e2e.NpmVersion+`",`)) {
		t.Fatalf("global config:\n%s", cfg)
	}
	e.Ask("部署前要做什么?")
	assertFromNpm(t, e, reg)
	doc := npx(t, e, true, "ocmem@"+e2e.NpmVersion, "doctor")
	if !strings.Contains(doc, "ok   plugin package: ocmem@"+e2e.NpmVersion+" in OpenCode's cache") || !strings.Contains(doc, "to upgrade, change the pin") {
		t.Errorf("npx ocmem doctor said:\n%s", doc)
	}
}

// TestNpmGlobalInstall: `npm i -g ocmem@V` links the launcher onto PATH;
// through it `ocmem install` registers the pinned package and the git
// merge driver with the platform binary, whose path lasts until the next
// npm install.
func TestNpmGlobalInstall(t *testing.T) {
	e, _ := e2e.NewNpmEnv(t)
	prefix := filepath.Join(t.TempDir(), "global")
	e.Vars = append(e.Vars, "npm_config_prefix="+prefix)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = e.Dir
		cmd.Env = e.Environ()
		out, err := cmd.CombinedOutput()
		e.Record(fmt.Sprintf("$ %s %q (err=%v)\n%s", name, args, err, out))
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("npm", "install", "-g", "--no-audit", "--no-fund", "ocmem@"+e2e.NpmVersion)
	launcher := filepath.Join(prefix, "bin", "ocmem")
	if runtime.GOOS == "windows" {
		launcher = filepath.Join(prefix, "ocmem.cmd")
	}
	if got := strings.TrimSpace(run(launcher, "version")); got != "ocmem "+e2e.NpmVersion {
		t.Errorf("ocmem version through the launcher printed %q", got)
	}
	out := run(launcher, "install")
	for _, want := range []string{"registered ocmem@" + e2e.NpmVersion + " in ", "registered the git merge driver for ROOT.md",
		"`ocmem doctor` (or `npx ocmem@" + e2e.NpmVersion + " doctor`) checks the setup"} {
		if !strings.Contains(out, want) {
			t.Errorf("ocmem install said:\n%s\nwant %q", out, want)
		}
	}
	driver := e.GitIn(e.Project, "config", "--global", "merge.ocmem.driver")
	want := filepath.Join("node_modules", "ocmem-"+e2e.NodePlatform(), "bin", "ocmem")
	if !strings.Contains(driver, prefix) || !strings.Contains(driver, want) {
		t.Errorf("merge driver %q does not run the platform binary under %s", driver, prefix)
	}
}

// TestNpxDoctorFixRepairsCache: when OpenCode's copy of ocmem@V lacks its
// platform binary, memory is off and the plugin says which command repairs
// it; `npx ocmem@V doctor --fix` removes the copy, and the next start of
// OpenCode installs it again, binary included, and memory works again.
func TestNpxDoctorFixRepairsCache(t *testing.T) {
	e, reg := e2e.NewNpmEnv(t)
	e.RememberDeploy()
	e.SetPlugins(e2e.PluginTuple("ocmem@"+e2e.NpmVersion, map[string]any{}))
	e.Ask("部署前要做什么?")
	assertFromNpm(t, e, reg)

	// The binary's package goes missing from OpenCode's copy.
	nm := filepath.Join(e.Home, ".cache", "opencode", "packages", "ocmem@"+e2e.NpmVersion, "node_modules")
	if err := os.RemoveAll(filepath.Join(nm, "ocmem-"+e2e.NodePlatform())); err != nil {
		t.Fatal(err)
	}
	e.Ask("部署前要做什么?")
	fix := "To repair it, run `npx ocmem@" + e2e.NpmVersion + " doctor --fix`, then restart OpenCode."
	if logs := e.Logs(); !strings.Contains(logs, "memory is off") || !strings.Contains(logs, fix) {
		t.Errorf("OpenCode's log does not name the repair; it has:\n%s", grepLines(logs, "ocmem"))
	}
	doc := npx(t, e, true, "ocmem@"+e2e.NpmVersion, "doctor")
	if !strings.Contains(doc, "FAIL plugin package") || !strings.Contains(doc, "run `npx ocmem@"+e2e.NpmVersion+" doctor --fix`") {
		t.Errorf("npx ocmem doctor said:\n%s", doc)
	}
	doc = npx(t, e, true, "ocmem@"+e2e.NpmVersion, "doctor", "--fix")
	if !strings.Contains(doc, "ok   plugin package: fixed: removed OpenCode's copy of ocmem@"+e2e.NpmVersion) {
		t.Errorf("npx ocmem doctor --fix said:\n%s", doc)
	}

	before := len(fakellm.Agent(e.Fake.Requests()))
	e.Ask("部署前要做什么?")
	if _, err := os.Stat(filepath.Join(nm, "ocmem-"+e2e.NodePlatform())); err != nil {
		t.Fatalf("OpenCode did not install the package again: %v", err)
	}
	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) <= before || !strings.Contains(agent[len(agent)-1].LastUserText(), e2e.DeployBody) {
		t.Errorf("after the repair the deploy memory's body did not reach the model")
	}
}
