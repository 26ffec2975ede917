package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/testenv"
)

// TestRecheckWorktree: a session in a linked worktree on another branch is
// re-checked against that worktree's code, not the main checkout's. There
// src/a.go and src/c.go changed (in the main checkout they did not), and
// src/b.go changed in the main checkout alone. The model is asked about a
// and c, shown the worktree's text; a is verified at the worktree's HEAD;
// c's update names src/c2.go, which only the worktree has, and is anchored
// to it at that HEAD; b, fresh in the worktree, is not asked about nor
// marked.
func TestRecheckWorktree(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	h := newHarness(t)
	main := filepath.Dir(h.dir)
	wt := filepath.Join(t.TempDir(), "wt")
	git := func(dir string, args ...string) string {
		t.Helper()
		return strings.TrimSpace(testenv.Git(t, dir, args...))
	}
	write := func(dir, name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(dir, msg string) string {
		t.Helper()
		git(dir, "add", "-A")
		git(dir, "commit", "-q", "-m", msg)
		return git(dir, "rev-parse", "HEAD")
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(main, "init", "-q")
	write(main, ".gitignore", ".memory/\n")
	for _, n := range []string{"a", "b", "c"} {
		write(main, "src/"+n+".go", "package src // "+n+" v1\n")
	}
	start := commit(main, "start")
	ids := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		ids[n] = h.remember(engine.RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "about the " + n + " code",
			LoadWhen: []string{n}, Body: "See `src/" + n + ".go`.", Source: engine.FromPerson})
		if v := h.memories()[ids[n]].Verified; v.Commit != start {
			t.Fatalf("%s verified at %q, want %s", ids[n], v.Commit, start)
		}
	}
	git(main, "worktree", "add", "-q", "-b", "other", wt)
	write(main, "src/b.go", "package src // b v2, in the main checkout\n")
	commit(main, "change b")
	write(wt, "src/a.go", "package src // a v2, in the worktree\n")
	write(wt, "src/c.go", "package src // c v2, in the worktree\n")
	write(wt, "src/c2.go", "package src // c2, in the worktree\n")
	head := commit(wt, "change a and c")

	verdicts := map[string]string{
		"a": `{"verdict": "still_true"}`,
		"b": `{"verdict": "no_longer_true", "reason": "the main checkout's code says otherwise"}`,
		"c": `{"verdict": "updated", "summary": "about the c code, moved", "body": "See ` + "`src/c2.go`" + `."}`,
	}
	var asked []string
	h.srv.reply = func(n int, req opencode.PromptRequest) (string, error) {
		if req.System != recheckSystem {
			return `{"memories": []}`, nil
		}
		text := req.Parts[0].Text
		for name, v := range verdicts {
			if strings.Contains(text, ", "+ids[name]+")") {
				asked = append(asked, name)
				if want := "=== src/" + name + ".go\npackage src // " + name + " v2, in the worktree"; !strings.Contains(text, want) {
					t.Errorf("the prompt for %s lacks the worktree's text %q:\n%s", name, want, text)
				}
				return v, nil
			}
		}
		return "", fmt.Errorf("no verdict for %s", text)
	}
	h.srv.addTurns(4, func(i int) (string, string) {
		var b strings.Builder
		for _, n := range []string{"a", "b", "c"} {
			fmt.Fprintf(&b, "<memory id=%q scope=\"project\" kind=\"fact\" updated=\"x\">\n…\n</memory>\n", ids[n])
		}
		return b.String() + "question " + fmt.Sprint(i), "answer"
	})
	res := h.x.Run(context.Background(), h.e, Request{SessionID: h.srv.session.ID, ServerURL: "http://127.0.0.1:4096/",
		Options: options.Options{}, CodeDir: wt})
	if res.Err != nil {
		t.Fatalf("result %+v", res)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"a", "c"}) {
		t.Errorf("asked about %v, want a and c (stale in the worktree)", asked)
	}
	got := map[string]string{}
	upID := ""
	for _, r := range res.Rechecked {
		got[r.ID] = r.Action
		if r.Written != nil {
			upID = r.Written.ID
		}
	}
	if want := map[string]string{ids["a"]: RecheckVerified, ids["c"]: RecheckSuperseded}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rechecked %v, want %v", got, want)
	}
	mems := h.memories()
	if v := mems[ids["a"]].Verified; v.Commit != head {
		t.Errorf("a verified at %q, want the worktree's HEAD %s", v.Commit, head)
	}
	if m := mems[ids["b"]]; !m.Outdated.IsZero() || m.Verified.Commit != start {
		t.Errorf("b, fresh in the worktree, was changed: outdated %+v, verified %+v", m.Outdated, m.Verified)
	}
	if up := mems[upID]; up == nil {
		t.Errorf("c's update %q not written", upID)
	} else if up.Supersedes != ids["c"] || !slices.Contains(up.Anchors, "src/c2.go") || up.Verified.Commit != head {
		t.Errorf("c's update: supersedes %q, anchors %v, verified at %q; want %s, src/c2.go, the worktree's HEAD %s",
			up.Supersedes, up.Anchors, up.Verified.Commit, ids["c"], head)
	}
	if list, err := h.e.StaleIn(wt); err != nil || len(list) != 0 {
		t.Errorf("stale in the worktree after the re-check: %+v, %v; want none", list, err)
	}
}
