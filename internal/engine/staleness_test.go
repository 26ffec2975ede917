package engine

import (
	"github.com/ocmem/ocmem/internal/testenv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// TestFindStale: each line of text is a memory body; want is what the
// warning names, "" for none. Every pattern has a case that fires, and the
// near misses that must not.
func TestFindStale(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		// local paths
		{"Run it from /Users/alice/src/app.", "a local path /Users/alice"},
		{"the venv is in /home/bob/.venvs/x", "a local path /home/bob"},
		{`Open C:\Users\bob\AppData\Roaming\x`, `a local path C:\Users\bob`},
		{"d:/users/Carol/proj", "a local path d:/users/Carol"},
		{"temp files land in /var/folders/xy/T/abc", "a local path /var/folders/xy/T/abc"},
		{"Put the token in ~/.npmrc, never in the repository.", ""},
		{"$HOME/.cache/ocmem holds the logs", ""},
		{"GitHub Actions checks out to /home/runner/work/x/x", ""},
		{"brew lives in /home/linuxbrew/.linuxbrew", ""},
		{"https://example.com/home/users/index.html", ""},
		{"the API serves /users/{id}", ""},
		// branches
		{"The rewrite is on branch feature/login.", "the current branch feature/login"},
		{"I checked out the branch wip-retry.", "the current branch wip-retry"},
		{"pushed to branch fix/flaky-test", "the current branch fix/flaky-test"},
		{"see the `feature/payments` branch", "the current branch feature/payments"},
		{"current branch: release-7", "the current branch release-7"},
		{"当前分支有一个未提交的迁移", "the current branch 当前分支"},
		{"在 feature/x 分支上改了配置", "the current branch feature/x"},
		{"Never commit on branch main.", ""},
		{"任何仓库都不许对 main/master 做 force push;要改历史就开新分支再提 PR。", ""},
		{"自己的 feature 分支可以用 `--force-with-lease`", ""},
		{"CI 是 Jenkins 多分支流水线", ""},
		{"在 main 分支上不要直接提交", ""},
		{"git push -u origin HEAD pushes the current branch", ""},
		// task state
		{"WIP: the retry loop", "task state WIP"},
		{"Currently working on the importer.", "task state Currently working on"},
		{"I'm in the middle of the migration", "task state I'm in the middle of"},
		{"TODO today: finish the parser", "task state TODO today"},
		{"Tomorrow's tasks are the docs", "task state Tomorrow's tasks"},
		{"Next steps: wire the CLI", "task state Next steps:"},
		{"我们正在迁移数据库", "task state 我们正在"},
		{"正在做登录页", "task state 正在做登"},
		{"当前任务是修复导入", "task state 当前任务"},
		{"包装描述写“正在做什么”,例如 \"load user 42: %w\"", ""},
		{"wipe the cache first", ""},
		{"The todo list app stores items in SQLite.", ""},
	} {
		m := &memory.Memory{ID: "facts/x", Kind: memory.KindFact, Summary: "x", Body: c.text}
		var got []string
		for _, f := range findStale(m) {
			got = append(got, f.rule.what+" "+f.text)
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%q: %q, want %q", c.text, strings.Join(got, "; "), c.want)
		}
	}
}

// TestStalenessDevSet holds the lint to the development set: real memories
// written to sync, which name ~/ paths, main and feature branches as
// conventions, and "正在做什么" as an example. It warns on none of them.
func TestStalenessDevSet(t *testing.T) {
	dir := *devSet
	e := New(Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")})
	s, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() == 0 {
		testenv.Missing(t, "development set not found in %s", dir)
	}
	const maxWarnings = 0 // measured: 0 of the set's memories
	var warned []string
	for _, f := range s.Files() {
		for _, st := range findStale(f.Memory) {
			warned = append(warned, f.Memory.ID+": "+st.rule.what+" "+st.text)
		}
	}
	t.Logf("%d memories, %d sync-staleness warnings", s.Len(), len(warned))
	if len(warned) > maxWarnings {
		t.Errorf("%d warnings on the development set, want at most %d:\n%s", len(warned), maxWarnings, strings.Join(warned, "\n"))
	}
}

// TestStalenessLinesFromCache: a fresh process could load unchanged
// memories from the load cache, which keeps no frontmatter lines; Inspect
// loads fresh, so the warnings of a second engine still name the line.
func TestStalenessLinesFromCache(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.project, "facts", "x.md"), "---\nid: facts/x\nkind: fact\ncreated: 1\nsummary: The rewrite is on branch feature/login\n---\nBody.\n")
	for i := range 2 {
		rep, err := rs.engine(Options{}).Inspect()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, is := range rep.Issues {
			if is.Check == "sync-staleness" {
				got = append(got, filepath.Base(is.Path)+":"+strconv.Itoa(is.Line))
			}
		}
		if strings.Join(got, " ") != "x.md:5" {
			t.Errorf("load %d: sync-staleness at %v, want x.md:5", i+1, got)
		}
	}
}
