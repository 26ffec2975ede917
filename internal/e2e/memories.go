package e2e

// What most tests start from: an Env with ocmem installed as a user installs
// it, the memories they write with the CLI (bodies carry markers the
// assertions look for), and the waits and checks they share.

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// MemoryTools are the tools ocmem offers the model, sorted.
var MemoryTools = []string{"memory_forget", "memory_inspect", "memory_recall", "memory_remember"}

// NewOcmemEnv is an Env with ocmem installed the way a user installs it.
func NewOcmemEnv(t testing.TB) *Env {
	t.Helper()
	return WithOcmem(t, NewEnv(t))
}

// NewOcmemEnv2 is NewOcmemEnv on OpenCode 2.
func NewOcmemEnv2(t testing.TB) *Env {
	t.Helper()
	return WithOcmem(t, NewEnvWith(t, EnvOptions{V2: true}))
}

// WithOcmem runs `ocmem install` in e, checks that the plugin went into
// e's OpenCode config folder, and returns e.
func WithOcmem(t testing.TB, e *Env) *Env {
	t.Helper()
	plugin := e.InstallOcmem()
	if !strings.HasPrefix(plugin, e.ConfigDir()+string(filepath.Separator)) {
		t.Fatalf("plugin installed at %s, outside %s", plugin, e.ConfigDir())
	}
	return e
}

// The bodies of the memories RememberDeploy, RememberUnrelated and
// RememberRule write.
const (
	DeployBody    = "DEPLOY-BODY: 部署之前先执行 make migrate, 否则新版本启动时表结构不匹配。"
	UnrelatedBody = "UNRELATED-BODY: the CLI parses flags with the standard flag package, one FlagSet per command."
	RuleBody      = "RULE-BODY: force-pushing main rewrote shared history twice; open a pull request instead."
)

// RememberDeploy writes a pitfall loaded by "部署" and "deploy".
func (e *Env) RememberDeploy() Memory {
	e.T.Helper()
	return e.Remember("pitfalls", "pitfall", "Run database migrations before deploying", DeployBody,
		"--load-when", "部署", "--load-when", "deploy")
}

// RememberUnrelated writes a fact no deploy question matches.
func (e *Env) RememberUnrelated() Memory {
	e.T.Helper()
	return e.Remember("facts", "fact", "The CLI uses the standard flag package", UnrelatedBody,
		"--load-when", "command-line flags")
}

// RememberRule writes a person's hard rule.
func (e *Env) RememberRule() Memory {
	e.T.Helper()
	return e.Remember("rules", "rule", "Never force-push to main", RuleBody)
}

// MustSession creates a session on srv, failing the test on error.
func MustSession(t testing.TB, srv *OpenCodeServe, ctx context.Context) string {
	t.Helper()
	id, err := srv.NewSession(ctx, "e2e")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// MustPrompt sends text to a session and returns the reply, failing the
// test on error or after RunTimeout.
func MustPrompt(t testing.TB, srv *OpenCodeServe, ctx context.Context, session, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	reply, err := srv.Prompt(ctx, session, text)
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return reply
}

// CountFiles counts the .md files under dir.
func CountFiles(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	return n
}

// ReadFileString is a file's text, empty when it cannot be read.
func ReadFileString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// AssertNothingLeft checks that no process of this Env outlives OpenCode 2
// (`opencode run --standalone` starts a server child, which starts `ocmem
// serve`): nothing running has this Env's HOME.
func AssertNothingLeft(t testing.TB, e *Env) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := ProcessesWithHome(e.Home)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running after OpenCode exited: %v", pids)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ProcessesWithHome lists the processes whose environment holds HOME=home
// (Linux: read from /proc), each as its pid and command line.
func ProcessesWithHome(home string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, ent := range entries {
		if _, err := strconv.Atoi(ent.Name()); err != nil {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(environ), "\x00") {
			if kv == "HOME="+home {
				cmdline, _ := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
				out = append(out, ent.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
				break
			}
		}
	}
	return out
}

// OcmemSystem returns the system message holding the outline ocmem injects.
func OcmemSystem(t *testing.T, r fakellm.Request, marker string) string {
	t.Helper()
	for _, s := range r.System() {
		if strings.Contains(s, marker) {
			return s
		}
	}
	t.Fatalf("request %d: no system message contains %q", r.Seq, marker)
	return ""
}
