package memory

import (
	"strings"
	"testing"
)

// TestSyncHazards: each line of text is a memory body; want is what the
// warning names, "" for none. Every pattern has a case that fires, and the
// near misses that must not.
func TestSyncHazards(t *testing.T) {
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
		{"README is still TODO, continue tomorrow.", "task state TODO, continue tomorrow"},
		{"The README is still TODO.", "task state is still TODO"},
		{"I will finish the importer tomorrow", "task state finish the importer tomorrow"},
		{"Continue the parser tomorrow.", "task state Continue the parser tomorrow"},
		{"README 还没写，明天继续", "task state 还没写"},
		{"明天再补测试", "task state 明天再"},
		{"The nightly job continues until the queue is empty.", ""},
		// tokens
		{"Set GITHUB_TOKEN=ghp_xxxxxxxxxxxx before pushing.", "a token ghp_xxxxxxxxxxxx"},
		{"api_key: <your key here>", "a token <your key here>"},
		{"DEPLOY_TOKEN=**** in CI", "a token ****"},
		{"The deploy reads the DEPLOY_TOKEN environment variable.", ""},
		{"token: $DEPLOY_TOKEN", ""},
		{"scikit-learn's sk-learn alias", ""},
	} {
		m := &Memory{ID: "facts/x", Kind: KindFact, Summary: "x", Body: c.text}
		var got []string
		for _, f := range SyncHazards(m) {
			got = append(got, f.What+" "+f.Text)
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%q: %q, want %q", c.text, strings.Join(got, "; "), c.want)
		}
	}
}
