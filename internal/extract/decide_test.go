package extract

import (
	"fmt"
	"math"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

func file(scope store.Scope, m memory.Memory) *store.File {
	return &store.File{Scope: scope, Rel: m.ID + ".md", Memory: &m}
}

// existing is the store the decisions are made against.
func existing() []memoryTerms {
	files := []*store.File{
		file(store.Global, memory.Memory{
			ID: "preferences/answer-in-chinese", Kind: memory.KindPreference,
			Summary: "Answer the user in Chinese", Highlight: "用中文回答",
			LoadWhen: []string{"language", "语言"}, Body: "The user reads Chinese faster.",
		}),
		file(store.Project, memory.Memory{
			ID: "pitfalls/run-database-migrations-before-deploying", Kind: memory.KindPitfall,
			Summary: "Run database migrations before deploying", Highlight: "make migrate",
			LoadWhen: []string{"deploy", "部署", "migration"},
			Body:     "部署之前先执行 make migrate, 否则新版本启动时表结构不匹配。",
		}),
		file(store.Project, memory.Memory{
			ID: "preferences/use-pnpm-8-for-installs", Kind: memory.KindPreference,
			Summary: "Use pnpm 8 for installs", Highlight: "pnpm install",
			LoadWhen: []string{"pnpm", "package manager", "包管理器"},
			Body:     "The lockfile is pnpm-lock.yaml; npm rewrites it.",
		}),
		file(store.Project, memory.Memory{
			ID: "decisions/the-api-is-versioned-in-the-url-path", Kind: memory.KindDecision, Pinned: true,
			Summary: "The API is versioned in the URL path", Highlight: "/v1/",
			LoadWhen: []string{"API versioning", "接口版本"},
			Body:     "Decided in review: header versioning breaks caches.",
		}),
		file(store.Project, memory.Memory{
			ID: "facts/ci-runs-on-jenkins", Kind: memory.KindFact, SupersededBy: "facts/ci-runs-on-github-actions",
			Summary: "CI runs on Jenkins", LoadWhen: []string{"CI", "持续集成"},
		}),
	}
	return liveMemories(files)
}

func TestDecide(t *testing.T) {
	live := existing()
	const (
		deploy = "project:pitfalls/run-database-migrations-before-deploying"
		pnpm   = "project:preferences/use-pnpm-8-for-installs"
		api    = "project:decisions/the-api-is-versioned-in-the-url-path"
	)
	tests := []struct {
		name  string
		c     Candidate
		want  Action
		match string
	}{
		{
			name: "reworded duplicate",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Run the database migrations before you deploy", Highlight: "make migrate", LoadWhen: triggers{"deploy", "部署"}},
			want: ActDuplicate, match: deploy,
		},
		{
			name: "duplicate of a global memory, in another category",
			c:    Candidate{Category: "facts", Kind: "fact", Summary: "The user wants answers in Chinese", LoadWhen: triggers{"language", "语言"}},
			want: ActDuplicate, match: "global:preferences/answer-in-chinese",
		},
		{
			name: "new fact",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Integration tests need Docker running", Highlight: "docker compose up -d", LoadWhen: triggers{"integration tests", "集成测试", "docker"}},
			want: ActWrite,
		},
		{
			name: "changed version supersedes",
			c:    Candidate{Category: "preferences", Kind: "preference", Summary: "Use pnpm 9 for installs", Highlight: "pnpm install", LoadWhen: triggers{"pnpm", "package manager", "包管理器"}},
			want: ActSupersede, match: pnpm,
		},
		{
			name: "another fact wanted in the same scenarios is new",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Deploys need the office VPN", Highlight: "vpn up", LoadWhen: triggers{"deploy", "部署", "migration"}},
			want: ActWrite,
		},
		{
			name: "a sibling fact with other triggers is new",
			c:    Candidate{Category: "preferences", Kind: "preference", Summary: "Use pnpm 8 for installs in the docs site", LoadWhen: triggers{"docs site", "文档站"}},
			want: ActWrite,
		},
		{
			name: "same topic in another category is new",
			c:    Candidate{Category: "facts", Kind: "fact", Summary: "Use pnpm 9 for installs", Highlight: "pnpm install", LoadWhen: triggers{"pnpm", "package manager", "包管理器"}},
			want: ActWrite,
		},
		{
			name: "model names the memory it updates",
			c:    Candidate{Category: "preferences", Kind: "preference", Summary: "Switch from pnpm to bun for installs", Highlight: "bun install", LoadWhen: triggers{"bun", "package manager", "包管理器"}, Supersedes: "preferences/use-pnpm-8-for-installs"},
			want: ActSupersede, match: pnpm,
		},
		{
			name: "model names it with scope and .md",
			c:    Candidate{Category: "preferences", Kind: "preference", Summary: "Switch from pnpm to bun for installs", LoadWhen: triggers{"bun", "package manager", "包管理器"}, Supersedes: pnpm + ".md"},
			want: ActSupersede, match: pnpm,
		},
		{
			name: "claimed update of an unrelated memory is ignored",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Integration tests need Docker running", LoadWhen: triggers{"docker"}, Supersedes: "pitfalls/run-database-migrations-before-deploying"},
			want: ActWrite,
		},
		{
			name: "claimed update of a missing memory is ignored",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Integration tests need Docker running", LoadWhen: triggers{"docker"}, Supersedes: "pitfalls/nope"},
			want: ActWrite,
		},
		{
			name: "claimed update that changes nothing",
			c:    Candidate{Category: "preferences", Kind: "preference", Summary: "Use pnpm 8 for installs", Highlight: "pnpm install", LoadWhen: triggers{"pnpm"}, Supersedes: "preferences/use-pnpm-8-for-installs"},
			want: ActDuplicate, match: pnpm,
		},
		{
			name: "update of a pinned memory",
			c:    Candidate{Category: "decisions", Kind: "decision", Summary: "The API is versioned in a request header", Highlight: "Accept-Version", LoadWhen: triggers{"API versioning", "接口版本"}},
			want: ActPinned, match: api,
		},
		{
			name: "claimed update of a pinned memory",
			c:    Candidate{Category: "decisions", Kind: "decision", Summary: "Move API versions to a header", LoadWhen: triggers{"API versioning", "接口版本", "header"}, Supersedes: "decisions/the-api-is-versioned-in-the-url-path"},
			want: ActPinned, match: api,
		},
		{
			// Too little in common to take the claim: written beside it,
			// the pinned memory untouched either way.
			name: "weak claimed update of a pinned memory",
			c:    Candidate{Category: "decisions", Kind: "decision", Summary: "Move API versions to a header", LoadWhen: triggers{"API versioning"}, Supersedes: "decisions/the-api-is-versioned-in-the-url-path"},
			want: ActWrite,
		},
		{
			name: "a superseded memory is no match",
			c:    Candidate{Category: "facts", Kind: "fact", Summary: "CI runs on Jenkins", LoadWhen: triggers{"CI", "持续集成"}},
			want: ActWrite,
		},
		{
			name: "claimed update of a superseded memory is ignored",
			c:    Candidate{Category: "facts", Kind: "fact", Summary: "CI runs on Buildkite", LoadWhen: triggers{"CI", "持续集成"}, Supersedes: "facts/ci-runs-on-jenkins"},
			want: ActWrite,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(tt.c, live)
			if d.Action != tt.want || d.Match != tt.match {
				t.Errorf("decide = %s %q (score %.2f: %s), want %s %q", d.Action, d.Match, d.Score, d.Reason, tt.want, tt.match)
			}
			t.Logf("%s %s %.2f: %s", d.Action, d.Match, d.Score, d.Reason)
		})
	}
}

// The measures, as formulas over the term sets: the thresholds are crossed
// exactly where the constants say.
func TestMeasures(t *testing.T) {
	set := func(ts ...string) termSet {
		s := termSet{}
		for _, x := range ts {
			s[x] = struct{}{}
		}
		return s
	}
	tests := []struct {
		a, b          termSet
		contain, jacc float64
	}{
		{set(), set("x"), 0, 0},
		{set(), set(), 0, 0},
		{set("a", "b", "c", "d", "e"), set("a", "b", "c", "d", "z"), 4.0 / 5, 4.0 / 6},
		{set("a", "b"), set("a", "b", "c", "d"), 1, 2.0 / 4},
		{set("a", "b", "c", "d"), set("a", "b"), 2.0 / 4, 2.0 / 4},
	}
	for _, tt := range tests {
		if got := containment(tt.a, tt.b); math.Abs(got-tt.contain) > 1e-9 {
			t.Errorf("containment(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.contain)
		}
		if got := jaccard(tt.a, tt.b); math.Abs(got-tt.jacc) > 1e-9 {
			t.Errorf("jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.jacc)
		}
	}
	// The duplicate bar: four of five terms known is a duplicate, three of
	// five is not.
	if c := containment(set("a", "b", "c", "d", "e"), set("a", "b", "c", "d")); c < DuplicateContainment {
		t.Errorf("4/5 = %v is below DuplicateContainment %v", c, DuplicateContainment)
	}
	if c := containment(set("a", "b", "c", "d", "e"), set("a", "b", "c")); c >= DuplicateContainment {
		t.Errorf("3/5 = %v reaches DuplicateContainment %v", c, DuplicateContainment)
	}
	if !newDigitTerm(set("pnpm", "9"), set("pnpm", "8")) || newDigitTerm(set("pnpm", "8"), set("pnpm", "8", "9")) {
		t.Errorf("newDigitTerm is wrong")
	}
}

// Equal scores go to the project memory, then to the smaller id, whatever
// the order of the store.
func TestDecideTieBreak(t *testing.T) {
	mk := func(scope store.Scope, id string) *store.File {
		return file(scope, memory.Memory{ID: id, Kind: memory.KindFact, Summary: "Deploys go through the staging cluster", LoadWhen: []string{"deploy"}})
	}
	c := Candidate{Category: "facts", Kind: "fact", Summary: "Deploys go through the staging cluster", LoadWhen: triggers{"deploy"}}
	for _, files := range [][]*store.File{
		{mk(store.Global, "facts/a"), mk(store.Project, "facts/c"), mk(store.Project, "facts/b")},
		{mk(store.Project, "facts/b"), mk(store.Project, "facts/c"), mk(store.Global, "facts/a")},
	} {
		d := decide(c, liveMemories(files))
		if d.Action != ActDuplicate || d.Match != "project:facts/b" {
			t.Errorf("decide = %s %s, want duplicate of project:facts/b", d.Action, d.Match)
		}
	}
}

func ExampleDecision() {
	d := decide(Candidate{Category: "preferences", Kind: "preference", Summary: "Use pnpm 9 for installs", Highlight: "pnpm install", LoadWhen: triggers{"pnpm", "package manager", "包管理器"}}, existing())
	fmt.Println(d.Action, d.Match)
	// Output: supersede project:preferences/use-pnpm-8-for-installs
}

// Updates and restatements as a careful model writes them: richer than
// the memory they update, and in either language.
func TestDecideAcrossLanguages(t *testing.T) {
	live := liveMemories([]*store.File{
		file(store.Project, memory.Memory{
			ID: "decisions/we-build-with-npm", Kind: memory.KindDecision,
			Summary: "We build with npm", Highlight: "npm ci",
			LoadWhen: []string{"npm", "build", "package manager"},
			Body:     "npm ships with Node, so nothing else is installed on CI.",
		}),
		file(store.Project, memory.Memory{
			ID: "decisions/frontend-uses-pnpm-workspaces", Kind: memory.KindDecision,
			Summary: "Frontend uses pnpm workspaces", Highlight: "pnpm -r build",
			LoadWhen: []string{"pnpm", "workspaces", "monorepo", "工作区"},
			Body:     "The admin UI and the site share components through a workspace.",
		}),
		file(store.Project, memory.Memory{
			ID: "pitfalls/run-database-migrations-before-deploying", Kind: memory.KindPitfall,
			Summary: "Run database migrations before deploying", Highlight: "make migrate",
			LoadWhen: []string{"deploy", "database migration"},
			Body:     "The new version fails to start on the old schema.",
		}),
	})
	const (
		npm      = "project:decisions/we-build-with-npm"
		frontend = "project:decisions/frontend-uses-pnpm-workspaces"
		migrate  = "project:pitfalls/run-database-migrations-before-deploying"
	)
	rich := Candidate{
		Category: "decisions", Kind: "decision", Summary: "We switched from npm to pnpm",
		Highlight:  "pnpm install --frozen-lockfile",
		LoadWhen:   triggers{"pnpm", "npm", "package manager", "包管理器", "install dependencies", "安装依赖", "lockfile", "锁文件"},
		Body:       "npm's flat node_modules let the admin UI import packages it never declared, which broke the build on CI. pnpm's strict layout catches that, and its store makes installs faster.",
		Supersedes: "decisions/we-build-with-npm",
	}
	tests := []struct {
		name  string
		c     Candidate
		want  Action
		match string
	}{
		{name: "a rich update the model names replaces the old decision", c: rich, want: ActSupersede, match: npm},
		{
			name: "another subject with the same words is not an update",
			c: Candidate{Category: "decisions", Kind: "decision", Summary: "Backend uses pnpm workspaces", Highlight: "pnpm -r build",
				LoadWhen: triggers{"pnpm", "workspaces", "monorepo", "工作区"}},
			want: ActWrite,
		},
		{
			name: "nor when the model names it",
			c: Candidate{Category: "decisions", Kind: "decision", Summary: "Backend uses pnpm workspaces", Highlight: "pnpm -r build",
				LoadWhen: triggers{"pnpm", "workspaces", "monorepo", "工作区"}, Supersedes: "decisions/frontend-uses-pnpm-workspaces"},
			want: ActWrite,
		},
		{
			name: "a changed fact of the same subject is",
			c: Candidate{Category: "decisions", Kind: "decision", Summary: "Frontend uses npm workspaces", Highlight: "npm run build --workspaces",
				LoadWhen: triggers{"npm", "workspaces", "monorepo", "工作区"}, Supersedes: "decisions/frontend-uses-pnpm-workspaces"},
			want: ActSupersede, match: frontend,
		},
		{
			name: "a Chinese restatement of an English memory is a duplicate",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "部署之前先运行数据库迁移", Highlight: "make migrate", LoadWhen: triggers{"部署", "数据库迁移"}},
			want: ActDuplicate, match: migrate,
		},
		{
			name: "a Chinese memory of another subject is new",
			c:    Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "集成测试需要先启动 Docker", Highlight: "docker compose up -d", LoadWhen: triggers{"集成测试", "docker"}},
			want: ActWrite,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(tt.c, live)
			if d.Action != tt.want || d.Match != tt.match {
				t.Errorf("decide = %s %q (score %.2f: %s), want %s %q", d.Action, d.Match, d.Score, d.Reason, tt.want, tt.match)
			}
			t.Logf("%s %s %.2f: %s", d.Action, d.Match, d.Score, d.Reason)
		})
	}
}
