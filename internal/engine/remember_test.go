package engine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/store"
)

func TestRememberWritesMemoryAndCompiles(t *testing.T) {
	tests := []struct {
		name     string
		req      RememberRequest
		wantPath string // relative to the project root
		wantKind memory.Kind
	}{
		{
			name: "latin summary, every field",
			req: RememberRequest{
				Category: "pitfalls", Kind: memory.KindPitfall,
				Summary:   "  SQLite unicode61 cannot split CJK text  ",
				Highlight: "trigram needs three characters",
				LoadWhen:  []string{"SQLite", " 分词 ", ""},
				Body:      "\n\nMeasured on SQLite 3.53.\nSecond line.  \n\n",
				Pinned:    true,
			},
			wantPath: "pitfalls/sqlite-unicode61-cannot-split-cjk.md",
			wantKind: memory.KindPitfall,
		},
		{
			name:     "the ascii words of a chinese summary make its id",
			req:      RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: "部署脚本用 pnpm 而不是 npm", Body: "lockfile 不兼容。"},
			wantPath: "decisions/pnpm-npm.md",
			wantKind: memory.KindDecision,
		},
		{
			name:     "a chinese summary without ascii words keeps its characters",
			req:      RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: "部署 前 先跑 集成测试", Body: "否则很难回滚。"},
			wantPath: "decisions/部署-前-先跑-集成测试.md",
			wantKind: memory.KindDecision,
		},
		{
			name:     "a category outside the defaults",
			req:      RememberRequest{Category: "conventions", Kind: memory.KindFact, Summary: "Tabs, not spaces", Body: "The linter enforces it."},
			wantPath: "conventions/tabs-not-spaces.md",
			wantKind: memory.KindFact,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRoots(t)
			e := rs.engine(options.Options{})
			w := mustRemember(t, e, tt.req)
			wantAbs := filepath.Join(rs.project, filepath.FromSlash(tt.wantPath))
			wantID := strings.TrimSuffix(tt.wantPath, ".md")
			if w.Path != wantAbs || w.ID != wantID || w.Scope != store.Project || w.Kind != tt.wantKind || w.Downgraded {
				t.Fatalf("Written = %+v, want id %s path %s in project as %s", w, wantID, wantAbs, tt.wantKind)
			}
			m := readMemory(t, w.Path)
			if err := m.Validate(wantID); err != nil {
				t.Errorf("written file does not validate: %v", err)
			}
			ms := testNow.UnixMilli()
			wantSummary := strings.Join(strings.Fields(tt.req.Summary), " ")
			var wantTriggers []string
			for _, x := range tt.req.LoadWhen {
				if x = strings.TrimSpace(x); x != "" {
					wantTriggers = append(wantTriggers, x)
				}
			}
			if m.ID != wantID || m.Kind != tt.wantKind || m.Summary != wantSummary ||
				m.Highlight != tt.req.Highlight || m.Created != ms || m.Updated != ms ||
				!slices.Equal(m.LoadWhen, wantTriggers) || m.Pinned != tt.req.Pinned ||
				m.Supersedes != "" || m.SupersededBy != "" {
				t.Errorf("frontmatter read back = %+v", m)
			}
			if tt.req.Body != "" {
				want := strings.TrimSpace(tt.req.Body) + "\n"
				if m.Body != want {
					t.Errorf("body = %q, want %q (trimmed, one final newline)", m.Body, want)
				}
			}

			// The category's index and ROOT.md were recompiled.
			cat := m.Category()
			if got := indexLines(t, rs.project, cat); !slices.Equal(got, []string{compile.IndexLine(m)}) {
				t.Errorf("%s/index.md lines = %q, want the new memory's line", cat, got)
			}
			root := readString(t, filepath.Join(rs.project, store.RootFile))
			if row := "| " + cat + " | 1 | 0 |"; !strings.Contains(root, row) {
				t.Errorf("ROOT.md has no registry row %q:\n%s", row, root)
			}
			for _, trig := range wantTriggers {
				row := "| " + trig + " | [" + wantID + "](" + wantID + ".md) |"
				if !strings.Contains(root, row) {
					t.Errorf("ROOT.md has no routing row %q:\n%s", row, root)
				}
			}
			// The global root was not touched.
			if got := tree(t, rs.global); len(got) != 0 {
				t.Errorf("global root was written: %v", got)
			}
			mustInspectClean(t, e)
		})
	}
}

func TestRememberUniqueSlugs(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	var ids []string
	for i := range 3 {
		w := mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "数据库 迁移", Body: fmt.Sprint("version ", i)})
		ids = append(ids, w.ID)
	}
	want := []string{"facts/数据库-迁移", "facts/数据库-迁移-2", "facts/数据库-迁移-3"}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
	if n := len(indexLines(t, rs.project, "facts")); n != 3 {
		t.Errorf("facts/index.md has %d lines, want 3", n)
	}
	mustInspectClean(t, e, "near-duplicate") // the same summary on purpose
}

func TestRememberDefaultScope(t *testing.T) {
	d := t.TempDir()
	g, p := filepath.Join(d, "g"), filepath.Join(d, "p")
	req := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "a fact"}
	tests := []struct {
		name      string
		cfg       Config
		scope     store.Scope
		wantScope store.Scope
		wantDir   string
	}{
		{"project configured", Config{GlobalDir: g, ProjectDir: p}, "", store.Project, p},
		{"global only", Config{GlobalDir: g}, "", store.Global, g},
		{"explicit global", Config{GlobalDir: g, ProjectDir: p}, store.Global, store.Global, g},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Now = func() time.Time { return testNow }
			r := req
			r.Scope = tt.scope
			r.Body = fmt.Sprint("case ", i)
			w := mustRemember(t, New(tt.cfg), r)
			if w.Scope != tt.wantScope || !strings.HasPrefix(w.Path, tt.wantDir+string(filepath.Separator)) {
				t.Errorf("Written = %+v, want scope %s under %s", w, tt.wantScope, tt.wantDir)
			}
		})
	}
	if _, err := New(Config{GlobalDir: g}).Remember(RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "x"}); !errors.Is(err, ErrNoRoot) {
		t.Errorf("Remember into an unconfigured project root: err = %v, want ErrNoRoot", err)
	}
}

func TestRememberRulesFromModelsAreProposals(t *testing.T) {
	tests := []struct {
		source         Source
		wantKind       memory.Kind
		wantDowngraded bool
	}{
		{FromPerson, memory.KindRule, false},
		{FromModel, memory.KindRuleProposal, true},
		{FromExtraction, memory.KindRuleProposal, true},
	}
	for _, tt := range tests {
		rs := newRoots(t)
		e := rs.engine(options.Options{})
		w := mustRemember(t, e, RememberRequest{Category: "rules", Kind: memory.KindRule, Summary: "Never force-push to main", Source: tt.source})
		if w.Kind != tt.wantKind || w.Downgraded != tt.wantDowngraded {
			t.Errorf("source %d: Written kind %s downgraded %v, want %s %v", tt.source, w.Kind, w.Downgraded, tt.wantKind, tt.wantDowngraded)
		}
		if m := readMemory(t, w.Path); m.Kind != tt.wantKind {
			t.Errorf("source %d: file kind %s, want %s", tt.source, m.Kind, tt.wantKind)
		}
		// Other kinds are stored as asked, whoever asks.
		w = mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "a fact", Source: tt.source})
		if w.Kind != memory.KindFact || w.Downgraded {
			t.Errorf("source %d: a fact became %s (downgraded %v)", tt.source, w.Kind, w.Downgraded)
		}
	}
}

func TestRememberRefusesSecretsAndWritesNothing(t *testing.T) {
	tok := fakeGitHubToken(1)
	if err := secrets.Check(map[string]string{"x": tok}); err == nil {
		t.Fatal("the generated token is not detected by the secret scanner; the test would prove nothing")
	}
	base := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI token location"}
	tests := []struct {
		name string
		edit func(*RememberRequest)
	}{
		{"body", func(r *RememberRequest) { r.Body = "The CI uses\nGITHUB_TOKEN=" + tok + "\nfor releases." }},
		{"summary", func(r *RememberRequest) { r.Summary = "token " + tok }},
		{"highlight", func(r *RememberRequest) { r.Highlight = tok }},
		{"load_when", func(r *RememberRequest) { r.LoadWhen = []string{"release", tok} }},
		{"from a model", func(r *RememberRequest) { r.Body = tok; r.Source = FromModel }},
		// Forms the scanner once missed; the summary's would also have
		// reached the file name, lower-cased.
		{"summary over two lines", func(r *RememberRequest) { r.Summary = "token " + tok[:20] + "\n" + tok[20:] }},
		{"zero-width space in the summary", func(r *RememberRequest) { r.Summary = "token " + tok[:10] + "\u200b" + tok[10:] }},
		{"a token only the file name would spell", func(r *RememberRequest) {
			// Spaces keep it from being a Slack token in the summary; the
			// slug joins its parts with dashes.
			r.Summary = "bot xoxb " + fakeDigits(12) + " " + fakeDigits(12) + " " + strings.ToLower(tok[4:28])
		}},
		// The category names a folder, the id and lines of index.md and
		// ROOT.md; it was once never scanned.
		{"category", func(r *RememberRequest) { r.Category = tok }},
		{"supersedes", func(r *RememberRequest) { r.Supersedes = "facts/" + tok }},
		{"split between the summary and the body", func(r *RememberRequest) {
			r.Summary = "the release job pushes with " + tok[:20]
			r.Body = tok[20:] + " from the vault"
		}},
		{"base64 in the body", func(r *RememberRequest) {
			r.Body = "the release job decodes " + base64.StdEncoding.EncodeToString([]byte(tok))
		}},
	}
	for _, fresh := range []bool{true, false} {
		for _, tt := range tests {
			name := tt.name
			if fresh {
				name += "/new root"
			} else {
				name += "/existing root"
			}
			t.Run(name, func(t *testing.T) {
				rs := newRoots(t)
				e := rs.engine(options.Options{})
				if !fresh {
					mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "an older fact"})
				}
				parent := filepath.Dir(rs.project)
				before := tree(t, parent)
				req := base
				tt.edit(&req)
				w, err := e.Remember(req)
				var se *secrets.Error
				if !errors.As(err, &se) {
					t.Fatalf("Remember = %+v, %v; want a *secrets.Error", w, err)
				}
				if strings.Contains(err.Error(), tok) {
					t.Errorf("the error shows the whole secret: %v", err)
				}
				if d := treeDiff(before, tree(t, parent)); len(d) > 0 {
					t.Errorf("a refused write changed the disk: %v", d)
				}
			})
		}
	}
}

// TestRememberChecksSizeBeforeScanning: a request over the size limit is
// refused for its size, before the secret scan (whose cost grows with the
// text) reads it; earlier versions scanned 3.5 MB for minutes first.
func TestRememberChecksSizeBeforeScanning(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	body := strings.Repeat("GITHUB_TOKEN="+fakeGitHubToken(1)+"\n", memory.MaxFileSize/40+1)
	_, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "big", Body: body})
	var se *secrets.Error
	if errors.As(err, &se) || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("Remember(%d bytes) = %v; want the size refusal, not a scan's", len(body), err)
	}
}

// fakeDigits returns n digits made at run time.
func fakeDigits(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(byte('1' + (i*7+3)%9))
	}
	return b.String()
}

func TestRememberRefusesBadRequests(t *testing.T) {
	ok := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "fine"}
	tests := []struct {
		name string
		edit func(*RememberRequest)
	}{
		{"category ../x", func(r *RememberRequest) { r.Category = "../x" }},
		{"category a/b", func(r *RememberRequest) { r.Category = "a/b" }},
		{"empty category", func(r *RememberRequest) { r.Category = "" }},
		{"category ..", func(r *RememberRequest) { r.Category = ".." }},
		{"hidden category", func(r *RememberRequest) { r.Category = ".git" }},
		{`category a\b`, func(r *RememberRequest) { r.Category = `a\b` }},
		{"absolute category", func(r *RememberRequest) { r.Category = "/tmp" }},
		{"bad kind", func(r *RememberRequest) { r.Kind = "bogus" }},
		{"empty kind", func(r *RememberRequest) { r.Kind = "" }},
		{"empty summary", func(r *RememberRequest) { r.Summary = "" }},
		{"blank summary", func(r *RememberRequest) { r.Summary = " \n\t " }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRoots(t)
			e := rs.engine(options.Options{})
			parent := filepath.Dir(rs.project)
			before := tree(t, parent)
			req := ok
			tt.edit(&req)
			if w, err := e.Remember(req); !errors.Is(err, ErrBadRequest) {
				t.Fatalf("Remember = %+v, %v; want ErrBadRequest", w, err)
			}
			if d := treeDiff(before, tree(t, parent)); len(d) > 0 {
				t.Errorf("a refused write changed the disk: %v", d)
			}
		})
	}
}

// A summary whose slug would be a name Windows reserves ("con", "nul",
// "aux", "com1", …) or "index" (the compiled index.md, which a compile
// would overwrite: the memory would be lost) must still be remembered, and
// survive the compile.
func TestRememberSummaryThatSlugsToAReservedName(t *testing.T) {
	for _, summary := range []string{"CON", "nul", "Aux.", "COM1", "Index", "index"} {
		rs := newRoots(t)
		e := rs.engine(options.Options{})
		w, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: summary, Body: "a body"})
		if err != nil {
			t.Errorf("Remember(summary %q): %v", summary, err)
			continue
		}
		if m := readMemory(t, w.Path); m.Summary != strings.TrimSpace(summary) {
			t.Errorf("summary %q read back as %q", summary, m.Summary)
		}
		mustInspectClean(t, e)
	}
}

func TestRememberSupersedesInSameRoot(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{HalfLifeDays: -1})
	old := mustRemember(t, e, RememberRequest{Category: "decisions", Kind: memory.KindDecision,
		Summary: "Deploy with kubectl apply", LoadWhen: []string{"deploy"}, Body: "Old way: kubectl apply -f.\n"})
	oldBefore := readMemory(t, old.Path)

	nw := mustRemember(t, e, RememberRequest{Category: "decisions", Kind: memory.KindDecision,
		Summary: "Deploy with helm upgrade", LoadWhen: []string{"deploy"}, Supersedes: old.ID, Source: FromModel})
	if nw.Superseded != old.ID {
		t.Errorf("Written.Superseded = %q, want %q", nw.Superseded, old.ID)
	}
	if m := readMemory(t, nw.Path); m.Supersedes != old.ID {
		t.Errorf("new memory supersedes %q, want %q", m.Supersedes, old.ID)
	}
	m := readMemory(t, old.Path) // kept, for history
	if m.SupersededBy != nw.ID {
		t.Errorf("old memory superseded_by = %q, want %q", m.SupersededBy, nw.ID)
	}
	if m.Summary != oldBefore.Summary || m.Body != oldBefore.Body || m.Updated != oldBefore.Updated || !slices.Equal(m.LoadWhen, oldBefore.LoadWhen) {
		t.Errorf("marking the old memory changed its fields: %+v", m)
	}
	for _, q := range []string{"Deploy with kubectl apply", "kubectl", "deploy"} {
		hits, err := e.Recall(q, RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.ID == old.ID {
				t.Errorf("Recall(%q) returned the superseded memory", q)
			}
		}
	}
	mustInspectClean(t, e)

	// Superseding it again is refused: it already has a successor.
	if _, err := e.Remember(RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: "third", Supersedes: old.ID}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("superseding an already superseded memory: err = %v, want ErrBadRequest", err)
	}
}

func TestRememberSupersedesPinned(t *testing.T) {
	for _, tt := range []struct {
		source  Source
		wantErr error
	}{
		{FromModel, ErrPinned},
		{FromExtraction, ErrPinned},
		{FromPerson, nil},
	} {
		rs := newRoots(t)
		e := rs.engine(options.Options{})
		pinned := mustRemember(t, e, RememberRequest{Category: "preferences", Kind: memory.KindPreference, Summary: "Answer in Chinese", Pinned: true})
		before := tree(t, filepath.Dir(rs.project))
		w, err := e.Remember(RememberRequest{Category: "preferences", Kind: memory.KindPreference, Summary: "Answer in English", Body: "The team reads English.", Supersedes: pinned.ID, Source: tt.source})
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("source %d: err = %v, want %v", tt.source, err, tt.wantErr)
			continue
		}
		if tt.wantErr != nil {
			if d := treeDiff(before, tree(t, filepath.Dir(rs.project))); len(d) > 0 {
				t.Errorf("source %d: a refused supersede changed the disk: %v", tt.source, d)
			}
			continue
		}
		if m := readMemory(t, pinned.Path); m.SupersededBy != w.ID {
			t.Errorf("a person's supersede did not mark the pinned memory: superseded_by %q", m.SupersededBy)
		}
	}
}

func TestRememberSupersedesMissing(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "present"})
	before := tree(t, filepath.Dir(rs.project))
	for _, id := range []string{"facts/absent", "decisions/absent"} {
		if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "new", Body: "a body", Supersedes: id}); !errors.Is(err, ErrNotFound) {
			t.Errorf("supersedes %s: err = %v, want ErrNotFound", id, err)
		}
	}
	if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "new", Supersedes: "../../etc/passwd"}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("supersedes ../../etc/passwd: err = %v, want ErrBadRequest", err)
	}
	if d := treeDiff(before, tree(t, filepath.Dir(rs.project))); len(d) > 0 {
		t.Errorf("a refused supersede changed the disk: %v", d)
	}
}

func TestRememberProjectSupersedesGlobal(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{HalfLifeDays: -1})
	g := mustRemember(t, e, RememberRequest{Scope: store.Global, Category: "preferences", Kind: memory.KindPreference,
		Summary: "Use tabs for indentation", LoadWhen: []string{"indentation"}})
	globalBefore := tree(t, rs.global)

	p := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "preferences", Kind: memory.KindPreference,
		Summary: "Use two spaces for indentation in this repository", LoadWhen: []string{"indentation"}, Supersedes: g.ID})
	if p.Scope != store.Project {
		t.Fatalf("Written = %+v", p)
	}
	if d := treeDiff(globalBefore, tree(t, rs.global)); len(d) > 0 {
		t.Errorf("superseding from the project changed the global root: %v", d)
	}
	if m := readMemory(t, p.Path); m.Supersedes != g.ID {
		t.Errorf("project memory supersedes %q, want %q", m.Supersedes, g.ID)
	}
	for _, q := range []string{"indentation", "Use tabs for indentation", "tabs"} {
		hits, err := e.Recall(q, RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Scope == store.Global && h.ID == g.ID {
				t.Errorf("Recall(%q) in the project returned the global memory it superseded", q)
			}
		}
	}
	// Another project (no project root) still sees the global memory.
	other := New(Config{GlobalDir: rs.global, Now: func() time.Time { return testNow }, Options: options.Options{HalfLifeDays: -1}})
	hits, err := other.Recall("Use tabs for indentation", RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != g.ID {
		t.Errorf("another project lost the global memory: %+v", hits)
	}
	mustInspectClean(t, e)
}

// An exact duplicate (same summary and body as a live memory of the root,
// whitespace aside) is refused with the existing id and the way to replace
// it; nothing is written. Superseding it, or another root, is fine.
func TestRememberRefusesExactDuplicate(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	req := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI runs on GitHub Actions", Body: "Workflows live in .github/workflows.\n", Source: FromModel}
	first := mustRemember(t, e, req)
	before := tree(t, rs.project)
	for _, dup := range []RememberRequest{
		req,
		{Category: "decisions", Kind: memory.KindDecision, Summary: "  CI runs on  GitHub Actions ", Body: "\nWorkflows live in .github/workflows.  \n\n", Source: FromModel, LoadWhen: []string{"ci"}},
	} {
		w, err := e.Remember(dup)
		if err == nil {
			t.Fatalf("a duplicate was written: %+v", w)
		}
		for _, want := range []string{"project:" + first.ID, "supersedes"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %q", err, want)
			}
		}
	}
	if d := treeDiff(before, tree(t, rs.project)); len(d) > 0 {
		t.Errorf("a refused duplicate changed files: %v", d)
	}
	// Another body, or superseding the existing one, is not a duplicate.
	other := req
	other.Body = "Workflows live in .github/workflows; the release one needs a tag."
	mustRemember(t, e, other)
	sup := req
	sup.Supersedes = first.ID
	mustRemember(t, e, sup)
	// The global root is another store: the same text there is allowed.
	glob := req
	glob.Scope = store.Global
	mustRemember(t, e, glob)
}

// A long-lived engine that has written before (its duplicate check then
// counts summaries rather than reading every memory) still finds a
// duplicate that another process wrote, or a hand edit made, since; and
// one that an edit took away is no longer one.
func TestRememberDuplicateFromElsewhere(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "first write", Body: "b", Source: FromModel})
	req := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI runs on GitHub Actions", Body: "Workflows live in .github/workflows.", Source: FromModel}
	other := mustRemember(t, rs.engine(options.Options{}), req)
	if _, err := e.Remember(req); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("another process's memory: %v, want a duplicate", err)
	}
	// A hand edit gives another memory the summary, with the watcher's event.
	p := filepath.Join(rs.project, "decisions", "by-hand.md")
	m := &memory.Memory{ID: "decisions/by-hand", Kind: memory.KindDecision, Summary: "deploys  need a tag", Body: "Tagged by CI.", Created: 1, Updated: 1}
	writeString(t, p, string(m.Format()))
	e.InvalidateFile(rs.project, p)
	if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "deploys need a tag", Body: "Tagged by CI.", Source: FromModel}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("a hand-edited memory: %v, want a duplicate", err)
	}
	// Edited away: its old summary is free again.
	if _, err := e.Forget(store.Project, other.ID, FromPerson); err != nil {
		t.Fatal(err)
	}
	mustRemember(t, e, req)
}

// TestRememberRefusesEmptyBody: a memory is its body, the summary only
// finds it, so remember without one is refused and nothing is written.
// Extraction keeps its own rule.
func TestRememberRefusesEmptyBody(t *testing.T) {
	for _, tt := range []struct {
		name   string
		source Source
		body   string
		ok     bool
	}{
		{"model, no body", FromModel, "", false},
		{"model, white space", FromModel, " \n\t\n", false},
		{"person, no body", FromPerson, "", false},
		{"extraction, no body", FromExtraction, "", true},
		{"model, a body", FromModel, "Measured on 3.53.", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRoots(t)
			e := rs.engine(options.Options{})
			before := tree(t, filepath.Dir(rs.project))
			_, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "SQLite trigram needs three characters", Body: tt.body, Source: tt.source})
			if tt.ok {
				if err != nil {
					t.Fatalf("Remember: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "body is empty") {
				t.Fatalf("Remember: %v, want a bad request saying the body is empty", err)
			}
			if d := treeDiff(before, tree(t, filepath.Dir(rs.project))); len(d) > 0 {
				t.Errorf("a refused remember changed files: %v", d)
			}
		})
	}
}

// TestRememberSameSummaryOtherBody: a summary a live memory of the root
// has already, with another body, is stored, and the result names the
// other memory so the reply can say one of them may be stale. Superseding
// it, another summary or another root name none.
func TestRememberSameSummaryOtherBody(t *testing.T) {
	const firstID = "facts/ci-runs-github-actions"
	for _, tt := range []struct {
		name string
		req  RememberRequest
		want string
	}{
		{"same summary, other body", RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: " CI runs on  GitHub Actions", Body: "Since 2024; Jenkins before."}, firstID},
		{"superseding it", RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI runs on GitHub Actions", Body: "The release workflow needs a tag.", Supersedes: firstID}, ""},
		{"another summary", RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI caches the Go build", Body: "Keyed on go.sum."}, ""},
		{"another root", RememberRequest{Scope: store.Global, Category: "facts", Kind: memory.KindFact, Summary: "CI runs on GitHub Actions", Body: "Everywhere."}, ""},
	} {
		rs := newRoots(t)
		e := rs.engine(options.Options{})
		if first := mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "CI runs on GitHub Actions", Body: "Workflows live in .github/workflows."}); first.ID != firstID {
			t.Fatalf("first id %s, want %s", first.ID, firstID)
		}
		w := mustRemember(t, e, tt.req)
		if w.SameSummary != tt.want {
			t.Errorf("%s: SameSummary = %q, want %q", tt.name, w.SameSummary, tt.want)
		}
		if _, err := os.Stat(w.Path); err != nil {
			t.Errorf("%s: not written: %v", tt.name, err)
		}
	}
}

// A category one letter off a configured one is a typo, refused before
// anything is written, unless its folder exists; any other new name makes
// a new category.
func TestRememberRefusesNearCategory(t *testing.T) {
	for _, tc := range []struct {
		category string
		folder   bool // made by hand first
		refused  bool
	}{
		{"pitfall", false, true},
		{"fact", false, true},
		{"decisons", false, true},
		{"Rules", false, true},
		{"pitfalls", false, false},
		{"conventions", false, false},
		{"pitfall", true, false},
		{"notes", false, false},
	} {
		t.Run(fmt.Sprintf("%s,folder=%v", tc.category, tc.folder), func(t *testing.T) {
			rs := newRoots(t)
			if tc.folder {
				if err := os.MkdirAll(filepath.Join(rs.project, tc.category), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			e := rs.engine(options.Options{})
			_, err := e.Remember(RememberRequest{Scope: store.Project, Category: tc.category, Kind: memory.KindFact, Summary: "A fact", Body: "b", Source: FromPerson})
			if got := errors.Is(err, ErrBadRequest); got != tc.refused {
				t.Fatalf("Remember into %q: err %v, want refused %v", tc.category, err, tc.refused)
			}
			if tc.refused && !strings.Contains(err.Error(), "did you mean") {
				t.Errorf("the error does not name the configured category: %v", err)
			}
			if _, serr := os.Stat(filepath.Join(rs.project, tc.category)); tc.refused && !os.IsNotExist(serr) {
				t.Errorf("a refused write made the folder %s: %v", tc.category, serr)
			}
		})
	}
}
