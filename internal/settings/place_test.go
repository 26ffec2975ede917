package settings

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
)

// Every edge finds the roots the same way from where it is asked to work;
// the one difference is documented: outside git, the worktree OpenCode
// reports is a project (SPEC: the canonical project root), a command's
// working directory is none (README: no project root unless you name one).
func TestPlaceRoots(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, plain, home := filepath.Join(d, "repo"), filepath.Join(d, "plain"), filepath.Join(d, "home")
	for _, dir := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "src", "pkg"), plain, filepath.Join(home, ".git")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("OPENCODE_CONFIG_DIR", filepath.Join(d, "config"))
	defaultGlobal := filepath.Join(d, "config", "memory")
	named := filepath.Join(d, "elsewhere")
	for _, tc := range []struct {
		name                string
		place               Place
		wantGlobal, project string
	}{
		{"a command in a repository's subfolder", Place{Dir: filepath.Join(repo, "src", "pkg")}, defaultGlobal, filepath.Join(repo, ".memory")},
		{"a session in a repository's subfolder", Place{Dir: filepath.Join(repo, "src", "pkg"), Reported: true}, defaultGlobal, filepath.Join(repo, ".memory")},
		{"a command outside git", Place{Dir: plain}, defaultGlobal, ""},
		{"a session outside git", Place{Dir: plain, Reported: true}, defaultGlobal, filepath.Join(plain, ".memory")},
		{"a session with no project", Place{Dir: "/", Reported: true}, defaultGlobal, ""},
		{"no folder", Place{}, defaultGlobal, ""},
		{"a command in the home folder's checkout", Place{Dir: home}, defaultGlobal, ""},
		{"a session in the home folder's checkout", Place{Dir: home, Reported: true}, defaultGlobal, ""},
		{"named roots", Place{GlobalDir: named, ProjectDir: filepath.Join(named, "p"), Dir: repo}, named, filepath.Join(named, "p")},
		{"a named project outside git", Place{ProjectDir: filepath.Join(named, "p"), Dir: plain}, defaultGlobal, filepath.Join(named, "p")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p, err := tc.place.Roots()
			if err != nil {
				t.Fatal(err)
			}
			if g != tc.wantGlobal || p != tc.project {
				t.Errorf("Roots() = %q, %q; want %q, %q", g, p, tc.wantGlobal, tc.project)
			}
			cfg, err := tc.place.Engine(options.Options{MaxInjectChars: 900})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.GlobalDir != g || cfg.ProjectDir != p || cfg.Options.MaxInjectChars != 900 || cfg.ProjectChosen != (tc.place.ProjectDir != "") {
				t.Errorf("Engine() = %+v; want the roots %q, %q, the options and ProjectChosen %v", cfg, g, p, tc.place.ProjectDir != "")
			}
		})
	}
}

// A project's trust is the trust list's: none without a list, and the
// project only once the list names it.
func TestPlaceTrust(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(d, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	list := engine.TrustList{Path: filepath.Join(d, "trust.json")}
	p := Place{GlobalDir: filepath.Join(d, "global"), Dir: repo, TrustFile: list.Path}
	_, project, err := p.Roots()
	if err != nil {
		t.Fatal(err)
	}
	if p.Trusted(project) || (Place{Dir: repo}).Trusted(project) || p.Trusted("") {
		t.Fatal("trusted before the list names the project")
	}
	if _, err := list.Trust(engine.ProjectKey(project), time.Now()); err != nil {
		t.Fatal(err)
	}
	if !p.Trusted(project) {
		t.Error("not trusted once the list names it")
	}
	if (Place{Dir: repo}).Trusted(project) {
		t.Error("trusted without a trust list")
	}
}
