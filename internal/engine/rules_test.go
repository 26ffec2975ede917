package engine

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

func TestRememberRecordsWhoProposed(t *testing.T) {
	for _, c := range []struct {
		source Source
		kind   memory.Kind
		want   string // proposed_by; "-" for none
	}{
		{FromModel, memory.KindRule, "model"},
		{FromExtraction, memory.KindRule, "extraction"},
		{FromModel, memory.KindRuleProposal, "model"},
		{FromPerson, memory.KindRuleProposal, "-"},
		{FromPerson, memory.KindRule, "-"},
		{FromModel, memory.KindFact, "-"},
	} {
		e := newRoots(t).engine(options.Options{})
		w := mustRemember(t, e, RememberRequest{Category: "rules", Kind: c.kind, Summary: "Run the tests before a push", Source: c.source})
		data := readString(t, w.Path)
		got := "-"
		if _, rest, ok := strings.Cut(data, "\nproposed_by: "); ok {
			got, _, _ = strings.Cut(rest, "\n")
		}
		if got != c.want {
			t.Errorf("source %d, kind %s: proposed_by %q, want %q:\n%s", c.source, c.kind, got, c.want, data)
		}
		// It sits right after kind, where a person looks.
		if c.want != "-" && !strings.Contains(data, "\nkind: rule-proposal\nproposed_by: ") {
			t.Errorf("proposed_by is not right after kind:\n%s", data)
		}
	}
}

// rulesFixture has a rule and a proposal in each root, and a fact.
func rulesFixture(t *testing.T) (roots, *Engine) {
	t.Helper()
	rs := newRoots(t)
	write := func(root, id, kind, extra string) {
		writeString(t, filepath.Join(root, filepath.FromSlash(id)+".md"),
			"---\nid: "+id+"\nkind: "+kind+"   # keep this comment\n"+extra+"summary: "+id+" summary\ncreated: 1785585600000\nupdated: 1785585600000\nowner: alice\nload_when: [push]\n---\nWhy: it broke main twice.\n")
	}
	write(rs.global, "rules/no-force-push", "rule", "")
	write(rs.global, "rules/sign-commits", "rule-proposal", "proposed_by: extraction\n")
	write(rs.project, "rules/run-tests", "rule-proposal", "proposed_by: model\n")
	write(rs.project, "rules/a-person-proposed", "rule-proposal", "")
	write(rs.project, "rules/use-make", "rule", "")
	write(rs.project, "facts/ci", "fact", "")
	e := rs.engine(options.Options{})
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	return rs, e
}

func TestRules(t *testing.T) {
	rs, e := rulesFixture(t)
	if _, err := e.Rules(); err != nil {
		t.Fatal(err)
	}
	// A fresh engine, as the next CLI process, loads from the load cache:
	// proposed_by must survive that too.
	got, err := rs.engine(options.Options{}).Rules()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range got {
		lines = append(lines, strings.Join([]string{string(r.Scope), r.ID, string(r.Kind), r.ProposedBy}, " "))
		if r.Path != filepath.Join(rs.dir(r.Scope), filepath.FromSlash(r.ID)+".md") || r.Created != 1785585600000 || r.Updated != 1785585600000 || r.Summary != r.ID+" summary" {
			t.Errorf("entry %+v: wrong path, times or summary", r)
		}
	}
	want := []string{
		"global rules/no-force-push rule ",
		"global rules/sign-commits rule-proposal extraction",
		"project rules/use-make rule ",
		"project rules/a-person-proposed rule-proposal ",
		"project rules/run-tests rule-proposal model",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Rules:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestAccept(t *testing.T) {
	rs, e := rulesFixture(t)
	later := testNow.Add(time.Hour)
	e.now = func() time.Time { return later }
	before := tree(t, rs.project)
	globalBefore := tree(t, rs.global)

	w, err := e.Accept("", "rules/run-tests", "")
	if err != nil {
		t.Fatal(err)
	}
	if w.Scope != store.Project || w.ID != "rules/run-tests" || w.Kind != memory.KindRule {
		t.Errorf("Written = %+v", w)
	}
	after := tree(t, rs.project)
	// Exactly the memory, its index and ROOT.md's tables may change.
	if d := strings.Join(treeDiff(before, after), ", "); d != "changed rules/index.md, changed rules/run-tests.md" {
		t.Errorf("Accept changed: %s", d)
	}
	// In the memory, only kind and updated: every other byte stays.
	want := strings.Replace(before["rules/run-tests.md"], "kind: rule-proposal   # keep this comment", "kind: rule # keep this comment", 1)
	want = strings.Replace(want, "updated: 1785585600000", "updated: "+strconv.FormatInt(later.UnixMilli(), 10), 1)
	if got := after["rules/run-tests.md"]; got != want {
		t.Errorf("accepted file:\n%s\nwant:\n%s", got, want)
	}
	// The index line loses its "(rule-proposal)" mark.
	if !strings.Contains(after["rules/index.md"], "- [run-tests](run-tests.md) — rules/run-tests summary") {
		t.Errorf("index after Accept:\n%s", after["rules/index.md"])
	}
	if d := treeDiff(globalBefore, tree(t, rs.global)); len(d) > 0 {
		t.Errorf("Accept changed the other root: %v", d)
	}
	mustInspectClean(t, e)

	// A global proposal needs no scope when the id is only there; with the
	// wrong scope it is not found.
	if _, err := e.Accept(store.Project, "rules/sign-commits", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Accept in the wrong scope: %v, want ErrNotFound", err)
	}
	if w, err := e.Accept("", "rules/sign-commits", ""); err != nil || w.Scope != store.Global {
		t.Errorf("Accept of a global proposal: %+v, %v", w, err)
	}
}

func TestAcceptRejectRefuse(t *testing.T) {
	rs, e := rulesFixture(t)
	writeString(t, filepath.Join(rs.global, "rules", "run-tests.md"), readString(t, filepath.Join(rs.project, "rules", "run-tests.md")))
	writeString(t, filepath.Join(rs.project, "rules", "broken.md"), "---\nid: rules/broken\nkind: [rule-proposal\n---\n")
	before := [2]map[string]string{tree(t, rs.global), tree(t, rs.project)}
	for _, c := range []struct {
		name string
		fn   func() error
		want error
	}{
		{"accept a rule", func() error { _, err := e.Accept("", "rules/use-make", ""); return err }, ErrNotProposal},
		{"accept a fact", func() error { _, err := e.Accept("", "facts/ci", ""); return err }, ErrNotProposal},
		{"reject a rule", func() error { _, err := e.Reject("", "rules/use-make"); return err }, ErrNotProposal},
		{"reject a fact", func() error { _, err := e.Reject(store.Project, "facts/ci"); return err }, ErrNotProposal},
		{"in both roots", func() error { _, err := e.Accept("", "rules/run-tests", ""); return err }, ErrAmbiguous},
		{"missing", func() error { _, err := e.Reject("", "rules/nope"); return err }, ErrNotFound},
		{"outside the root", func() error { _, err := e.Reject("", "../outside/x"); return err }, nil},
		{"not category/slug", func() error { _, err := e.Accept("", "run-tests", ""); return err }, ErrBadRequest},
		{"does not parse", func() error { _, err := e.Accept("", "rules/broken", ""); return err }, nil},
	} {
		err := c.fn()
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if d := append(treeDiff(before[0], tree(t, rs.global)), treeDiff(before[1], tree(t, rs.project))...); len(d) > 0 {
		t.Errorf("refused calls changed files: %v", d)
	}
}

func TestReject(t *testing.T) {
	rs, e := rulesFixture(t)
	before := tree(t, rs.project)
	w, err := e.Reject(store.Project, "rules/run-tests.md")
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != "rules/run-tests" || w.Scope != store.Project {
		t.Errorf("Written = %+v", w)
	}
	after := tree(t, rs.project)
	if d := strings.Join(treeDiff(before, after), ", "); d != "changed ROOT.md, changed rules/index.md, removed rules/run-tests.md" {
		t.Errorf("Reject changed: %s", d)
	}
	if strings.Contains(after["rules/index.md"], "run-tests") || strings.Contains(after["ROOT.md"], "rules/run-tests") {
		t.Errorf("the rejected proposal is still compiled in")
	}
	mustInspectClean(t, e)
}

// TestCompileRepairsMerges: whatever a git merge left in the compiled files
// (union-merged index lines out of order, conflict markers in ROOT.md's
// tables), inspect reports it and one compile repairs it. A conflict in a
// person's text is reported and left alone.
func TestCompileRepairsMerges(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "Zeta", LoadWhen: []string{"zeta"}})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "Alpha", LoadWhen: []string{"alpha"}})
	root := filepath.Join(rs.project, store.RootFile)
	index := filepath.Join(rs.project, "facts", store.IndexFile)
	clean := readString(t, root)

	// What a union merge of index.md gives: ours, then theirs' line.
	idx := readString(t, index)
	lines := strings.SplitAfter(idx, "\n")
	writeString(t, index, strings.Join(append(lines[:len(lines)-3], lines[len(lines)-2], lines[len(lines)-3]), ""))
	// What a text merge of ROOT.md gives, without the driver.
	writeString(t, root, strings.Replace(clean, "| facts | 2 | 0 |", "<<<<<<< HEAD\n| facts | 1 | 0 |\n=======\n| facts | 3 | 0 |\n>>>>>>> theirs", 1))
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(issueStrings(t, rep), "\n"); !strings.Contains(got, "error merge-conflict project/ROOT.md") || !strings.Contains(got, "error index-drift project/facts/index.md") {
		t.Errorf("Inspect after a merge:\n%s", got)
	}
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	mustInspectClean(t, e)
	if got := readString(t, root); got != clean {
		t.Errorf("ROOT.md after compile:\n%s\nwant:\n%s", got, clean)
	}

	// A conflict in the person's text: compile refuses, says where.
	conflicted := strings.Replace(clean, "## Goals\n", "## Goals\n<<<<<<< HEAD\nShip it.\n=======\nShip it now.\n>>>>>>> theirs\n", 1)
	writeString(t, root, conflicted)
	rep, _ = e.Inspect()
	if got := strings.Join(issueStrings(t, rep), "\n"); got != "error merge-conflict project/ROOT.md:4" || !strings.Contains(rep.Issues[0].Message, "by hand") {
		t.Errorf("Inspect of a hand-written conflict: %s (%v)", got, rep.Issues)
	}
	if _, err := e.Compile(); !errors.Is(err, compile.ErrConflict) {
		t.Errorf("Compile of a hand-written conflict: %v, want ErrConflict", err)
	}
	if got := readString(t, root); got != conflicted {
		t.Errorf("Compile changed a ROOT.md with a hand-written conflict")
	}
}

// TestDecisionsAreWritesLikeTheOthers: an accept and a reject go through
// the write path Remember and Forget take, so the snapshot the engine
// holds follows the files decided (patched, not loaded again) and answers
// as a fresh load of the same files does.
func TestDecisionsAreWritesLikeTheOthers(t *testing.T) {
	for _, tt := range []struct {
		name   string
		decide func(e *Engine) (*Written, error)
		want   memory.Kind // of rules/run-tests afterwards; "" when gone
	}{
		{"accept", func(e *Engine) (*Written, error) { return e.Accept("", "rules/run-tests", "") }, memory.KindRule},
		{"reject", func(e *Engine) (*Written, error) { return e.Reject("", "rules/run-tests") }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, e := rulesFixture(t)
			if _, err := e.Load(); err != nil {
				t.Fatal(err)
			}
			if _, err := tt.decide(e); err != nil {
				t.Fatal(err)
			}
			s, err := e.Load()
			if err != nil {
				t.Fatal(err)
			}
			if !s.Patched {
				t.Errorf("the snapshot after %s was loaded again from every file, not patched with the file decided", tt.name)
			}
			var got memory.Kind
			if f := s.Lookup(store.Project, "rules/run-tests"); f != nil {
				got = f.Memory.Kind
			}
			if got != tt.want {
				t.Errorf("rules/run-tests after %s: kind %q, want %q", tt.name, got, tt.want)
			}
			a, _ := e.Stable()
			b, _ := rs.engine(options.Options{}).Stable()
			if a.System() != b.System() {
				t.Errorf("stable tiers after %s differ from a fresh load's:\n%s\n---\n%s", tt.name, a.System(), b.System())
			}
			mustInspectClean(t, e)
		})
	}
}
