package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// RunTimeout bounds one opencode invocation. Runs take 3–12 s; the first
// start of a fresh HOME also installs @opencode-ai/plugin with npm.
const RunTimeout = 2 * time.Minute

// ProviderID and ModelID name the fake provider in the generated config.
const (
	ProviderID = "fake"
	ModelID    = fakellm.ModelID
)

// Env is one isolated OpenCode installation: a private HOME (so
// ~/.config/opencode, ~/.local/share/opencode and the global memory root
// belong to the test), a git project, and a fake model server.
type Env struct {
	T        testing.TB
	OpenCode string           // the opencode binary
	V2       bool             // OpenCode is the 2.x binary
	Home     string           // $HOME
	Project  string           // main checkout of a git repository, with one commit
	Dir      string           // where runs start; Project unless changed (e.g. to a worktree)
	Fake     *fakellm.Server  // the model; set its responder per test
	Config   map[string]any   // the project's opencode.json; WriteConfig writes it
	Vars     []string         // extra KEY=VALUE for every run
	mu       sync.Mutex       // guards transcript
	runs     []string         // transcript of runs, printed when the test fails
	servers  []*OpenCodeServe // stopped at cleanup
	cacheDir string
}

// EnvOptions change how NewEnvWith prepares an Env. The zero value is what
// NewEnv uses.
type EnvOptions struct {
	// ColdConfig leaves ~/.config/opencode empty, so OpenCode installs
	// @opencode-ai/plugin itself on first start, as for a new user (10–30 s).
	// By default it is seeded with a shared, already installed copy.
	ColdConfig bool
	// V2 runs OpenCode 2 (OpenCode2Version) instead of 1.x: `run` gets
	// --standalone (without it OpenCode 2 starts a background service that
	// outlives the run), and no @opencode-ai/plugin is seeded (OpenCode 2
	// installs none and ocmem needs none there).
	V2 bool
}

// NewEnv prepares an Env; the project's opencode.json points at the fake
// model, with autoupdate and sharing off and no other provider enabled.
func NewEnv(t testing.TB) *Env {
	t.Helper()
	return NewEnvWith(t, EnvOptions{})
}

// NewEnvWith is NewEnv with options.
func NewEnvWith(t testing.TB, opts EnvOptions) *Env {
	t.Helper()
	var bin string
	if opts.V2 {
		bin = OpenCode2(t)
	} else {
		bin = OpenCode(t)
	}
	root := t.TempDir()
	// Resolve symlinks (macOS /var → /private/var) so paths compare equal
	// to what OpenCode and git report.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{
		T:        t,
		OpenCode: bin,
		V2:       opts.V2,
		Home:     filepath.Join(root, "home"),
		Project:  filepath.Join(root, "project"),
		Fake:     fakellm.New(nil),
		cacheDir: cache,
	}
	e.Dir = e.Project
	t.Cleanup(e.Fake.Close)
	t.Cleanup(e.cleanup)
	for _, d := range []string{e.Home, e.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.Config = map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{
			ProviderID: map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "Fake",
				"options": map[string]any{"baseURL": e.Fake.URL, "apiKey": "x"},
				"models": map[string]any{
					ModelID: map[string]any{
						"name":  "Fake",
						"limit": map[string]any{"context": 128000, "output": 4096},
						"cost":  map[string]any{"input": 1, "output": 2},
					},
				},
			},
		},
		"enabled_providers": []string{ProviderID},
		"model":             ProviderID + "/" + ModelID,
		"small_model":       ProviderID + "/" + ModelID,
		"autoupdate":        false,
		"share":             "disabled",
	}
	e.WriteConfig()
	if !opts.ColdConfig && !opts.V2 {
		e.seedConfigDeps(pluginDeps(t))
	}
	e.Git("init", "-q", "-b", "main")
	e.WriteFile("README.md", "# test project\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "initial")
	return e
}

// Environ is the environment of every command the Env runs: a whitelist of
// the caller's (PATH, locale, proxies, CA certificates, npm settings) plus
// the private HOME and XDG folders. Nothing else leaks in: no API keys, no
// OPENCODE_* variables, no real config.
func (e *Env) Environ() []string {
	keep := func(k string) bool {
		switch strings.ToUpper(k) {
		case "PATH", "LANG", "TZ", "TMPDIR", "TERM", "SYSTEMROOT", "COMSPEC", "PATHEXT",
			"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
			"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS":
			return true
		}
		return strings.HasPrefix(k, "LC_") || strings.HasPrefix(strings.ToLower(k), "npm_config_")
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if keep(k) {
			env = append(env, kv)
		}
	}
	// npm reads ~/.npmrc from HOME, which is private now: keep the real one
	// (registry mirrors, CA files) and share one npm cache across tests.
	if real, err := os.UserHomeDir(); err == nil && os.Getenv("npm_config_userconfig") == "" {
		if rc := filepath.Join(real, ".npmrc"); FileExists(rc) {
			env = append(env, "npm_config_userconfig="+rc)
		}
	}
	if os.Getenv("npm_config_cache") == "" {
		env = append(env, "npm_config_cache="+filepath.Join(e.cacheDir, "npm-cache"))
	}
	env = append(env,
		"HOME="+e.Home,
		"USERPROFILE="+e.Home,
		"XDG_CONFIG_HOME="+filepath.Join(e.Home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(e.Home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(e.Home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(e.Home, ".local", "state"),
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
		"GIT_CONFIG_NOSYSTEM=1",
		// models.dev is not reachable in CI and the fake provider needs none of it.
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
	)
	return append(env, e.Vars...)
}

// seedConfigDeps makes ~/.config/opencode look like OpenCode already
// installed its dependencies there: OpenCode 1.18.33 skips its npm install
// when node_modules exists and package-lock.json lists every dependency of
// package.json. node_modules is a symlink to the shared copy; Node resolves
// @opencode-ai/plugin through it and its own imports from the real path.
func (e *Env) seedConfigDeps(deps string) {
	e.T.Helper()
	dir := e.ConfigDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.T.Fatal(err)
	}
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(deps, name))
		if err != nil {
			e.T.Fatal(err)
		}
		e.writeAbs(filepath.Join(dir, name), b)
	}
	if err := os.Symlink(filepath.Join(deps, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		e.T.Fatal(err)
	}
}

// ConfigDir is OpenCode's global config folder, ~/.config/opencode.
func (e *Env) ConfigDir() string { return filepath.Join(e.Home, ".config", "opencode") }

// LogDir is where OpenCode writes its log files.
func (e *Env) LogDir() string { return filepath.Join(e.Home, ".local", "share", "opencode", "log") }

// WriteConfig writes e.Config as the project's opencode.json.
func (e *Env) WriteConfig() {
	e.T.Helper()
	e.WriteJSON(filepath.Join(e.Project, "opencode.json"), e.Config)
}

// SetPlugins sets the project config's plugin list and writes it. Each entry
// is a path, or a [path, options] tuple (see PluginTuple).
func (e *Env) SetPlugins(plugins ...any) {
	e.T.Helper()
	e.Config["plugin"] = plugins
	e.WriteConfig()
}

// PluginTuple is a plugin config entry with options.
func PluginTuple(path string, options map[string]any) []any { return []any{path, options} }

// WriteJSON writes v as indented JSON, creating parent folders.
func (e *Env) WriteJSON(path string, v any) {
	e.T.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		e.T.Fatal(err)
	}
	e.writeAbs(path, append(b, '\n'))
}

// WriteFile writes a file relative to the project (or absolute).
func (e *Env) WriteFile(name, content string) string {
	e.T.Helper()
	if !filepath.IsAbs(name) {
		name = filepath.Join(e.Project, name)
	}
	e.writeAbs(name, []byte(content))
	return name
}

func (e *Env) writeAbs(path string, b []byte) {
	e.T.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// Git runs git in the project and returns its trimmed stdout.
func (e *Env) Git(args ...string) string {
	e.T.Helper()
	return e.GitIn(e.Project, args...)
}

// GitIn runs git in dir.
func (e *Env) GitIn(dir string, args ...string) string {
	e.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// AddWorktree creates a linked worktree of the project on a new branch and
// returns its path (a sibling of the project folder).
func (e *Env) AddWorktree(name string) string {
	e.T.Helper()
	dir := filepath.Join(filepath.Dir(e.Project), name)
	e.Git("worktree", "add", "-q", "-b", name, dir)
	return dir
}

// Result is the outcome of one opencode invocation.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	Err      error
	Duration time.Duration
}

// Run runs opencode with args in e.Dir, waits for it, and records it for
// the failure transcript. It does not fail the test; see MustRun.
func (e *Env) Run(ctx context.Context, args ...string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	if e.V2 && len(args) > 0 && args[0] == "run" && !slices.Contains(args, "--server") {
		args = append([]string{"run", "--standalone"}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, e.OpenCode, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	SetProcessGroup(cmd, true)
	start := time.Now()
	err := cmd.Run()
	res := Result{Args: args, Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Duration: time.Since(start)}
	if ctx.Err() != nil {
		res.Err = fmt.Errorf("opencode %s: %w after %v (%v)", strings.Join(args, " "), ctx.Err(), res.Duration.Round(time.Millisecond), err)
	}
	e.Record(fmt.Sprintf("$ opencode %q  (in %s, %v, err=%v)\n--- stdout\n%s\n--- stderr\n%s",
		args, e.Dir, res.Duration.Round(time.Millisecond), res.Err, res.Stdout, res.Stderr))
	return res
}

// MustRun is Run that fails the test on a non-zero exit.
func (e *Env) MustRun(args ...string) Result {
	e.T.Helper()
	res := e.Run(context.Background(), args...)
	if res.Err != nil {
		e.T.Fatalf("opencode %q: %v\nstderr:\n%s", args, res.Err, Tail(res.Stderr, 4000))
	}
	return res
}

// Ask runs `opencode run msg` (a new session), failing the test on error.
func (e *Env) Ask(msg string) Result {
	e.T.Helper()
	return e.MustRun("run", msg)
}

// Continue runs `opencode run --continue msg` (the last session).
func (e *Env) Continue(msg string) Result {
	e.T.Helper()
	return e.MustRun("run", "--continue", msg)
}

// Record adds s to the transcript printed when the test fails.
func (e *Env) Record(s string) {
	e.mu.Lock()
	e.runs = append(e.runs, s)
	e.mu.Unlock()
}

// Logs returns the text of OpenCode's log files, oldest first.
func (e *Env) Logs() string {
	entries, _ := os.ReadDir(e.LogDir())
	var b strings.Builder
	for _, ent := range entries {
		data, err := os.ReadFile(filepath.Join(e.LogDir(), ent.Name()))
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "=== %s\n%s\n", ent.Name(), data)
	}
	return b.String()
}

// cleanup stops servers and, if the test failed, prints every run's output,
// the fake model's requests and OpenCode's logs.
func (e *Env) cleanup() {
	for _, s := range e.servers {
		s.Stop()
	}
	if !e.T.Failed() {
		return
	}
	e.mu.Lock()
	runs := slices.Clone(e.runs)
	e.mu.Unlock()
	for _, r := range runs {
		e.T.Log("\n" + Tail(r, 8000))
	}
	for _, r := range e.Fake.Requests() {
		e.T.Logf("fake model request %d (tools %v):\n%s", r.Seq, r.ToolNames(), Tail(string(r.Raw), 3000))
	}
	e.T.Log("OpenCode logs:\n" + Tail(e.Logs(), 30000))
	if b, err := os.ReadFile(e.OcmemLog()); err == nil {
		e.T.Log("ocmem log:\n" + Tail(string(b), 20000))
	}
}

// OcmemLog is where ocmem logs under this Env ($XDG_CACHE_HOME/ocmem/ocmem.log).
func (e *Env) OcmemLog() string { return filepath.Join(e.Home, ".cache", "ocmem", "ocmem.log") }

// Tail is the last n bytes of s, marked as cut when they are not all of it.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// FileExists reports whether p can be stat'ed.
func FileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
