package compile_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
)

// gitMergeFile is `git merge-file`, the text merge the ocmem merge driver
// uses for a person's text. The tests need git; CI has it.
func gitMergeFile(t *testing.T) compile.TextMerge {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	return func(base, ours, theirs []byte) ([]byte, bool, error) {
		dir := t.TempDir()
		paths := make([]string, 3)
		for i, b := range [][]byte{ours, base, theirs} {
			paths[i] = filepath.Join(dir, []string{"ours", "base", "theirs"}[i])
			if err := os.WriteFile(paths[i], b, 0o644); err != nil {
				return nil, false, err
			}
		}
		cmd := exec.Command("git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", paths[0], paths[1], paths[2])
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128 {
			return out, true, nil
		}
		return out, false, err
	}
}

// mem builds a live memory with triggers.
func mem(id string, triggers ...string) *memory.Memory {
	return &memory.Memory{ID: id, Kind: memory.KindFact, Summary: "summary of " + id, LoadWhen: triggers}
}

func superseded(m *memory.Memory, by string) *memory.Memory {
	c := *m
	c.SupersededBy = by
	return &c
}

// set is a memory set by id.
type set map[string]*memory.Memory

func setOf(ms ...*memory.Memory) set {
	s := set{}
	for _, m := range ms {
		s[m.ID] = m
	}
	return s
}

func (s set) with(ms ...*memory.Memory) set {
	out := set{}
	for k, v := range s {
		out[k] = v
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out
}

func (s set) without(ids ...string) set {
	out := set{}
	for k, v := range s {
		if !slices.Contains(ids, k) {
			out[k] = v
		}
	}
	return out
}

func (s set) list() []*memory.Memory {
	var out []*memory.Memory
	for _, m := range s {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// merged is what a git merge of the memory files gives, when the two sides
// changed different files.
func merged(b, o, t set) set {
	out := set{}
	for _, side := range []set{o, t} {
		for id, m := range side {
			_, inB := b[id]
			_, inO := o[id]
			_, inT := t[id]
			if inO && inT || !inB {
				out[id] = m
			}
		}
	}
	for id := range out {
		if bm, ok := b[id]; ok && o[id] != nil && t[id] != nil {
			switch { // the side that changed the file wins
			case o[id] != bm:
				out[id] = o[id]
			case t[id] != bm:
				out[id] = t[id]
			}
		}
	}
	return out
}

var cats = []string{"rules", "preferences", "decisions", "pitfalls", "facts"}

func rootOf(t *testing.T, hand string, s set) []byte {
	t.Helper()
	var old []byte
	if hand != "" {
		old = []byte(hand)
	}
	mems := s.list()
	b, err := compile.Root(old, compile.Categories(cats, mems), mems)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	handBase = "# Memory\n\n## Goals\n\nShip it.\n\n## Hard rules\n\n- Never force-push to main.\n"
	// each side edits a different part of the person's text
	handOurs   = "# Memory\n\n## Goals\n\nShip it, and keep it boring.\n\n## Hard rules\n\n- Never force-push to main.\n"
	handTheirs = "# Memory\n\n## Goals\n\nShip it.\n\n## Hard rules\n\n- Never force-push to main.\n- Run the tests before a push.\n"
	handBoth   = "# Memory\n\n## Goals\n\nShip it, and keep it boring.\n\n## Hard rules\n\n- Never force-push to main.\n- Run the tests before a push.\n"
)

// TestMergeRoot merges three compiled ROOT.md files the way the ocmem merge
// driver does and wants exactly what compile writes for the merged memory
// set: no conflict markers, the tables up to date at once.
func TestMergeRoot(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed", "deploy"), mem("decisions/helm", "deploy"))
	cases := []struct {
		name                 string
		base, ours, theirs   set
		hb, ho, ht, wantHand string
	}{
		{name: "both add in one category",
			base: seed, ours: seed.with(mem("facts/alpha", "alpha")), theirs: seed.with(mem("facts/beta", "beta"))},
		{name: "both add under one trigger",
			base: seed, ours: seed.with(mem("facts/alpha", "deploy", "Kafka")), theirs: seed.with(mem("facts/beta", "deploy", "kafka"))},
		{name: "one adds, one forgets",
			base: seed, ours: seed.with(mem("facts/alpha", "alpha")), theirs: seed.without("facts/seed")},
		{name: "one supersedes, one adds",
			base:   seed,
			ours:   seed.with(superseded(seed["facts/seed"], "facts/seed-2"), mem("facts/seed-2", "seed")),
			theirs: seed.with(mem("pitfalls/oom", "memory"))},
		{name: "both add a new category",
			base: seed, ours: seed.with(mem("notes/a", "a")), theirs: seed.with(mem("notes/b", "b"))},
		{name: "one empties a category the other adds to",
			base: seed, ours: seed.without("decisions/helm"), theirs: seed.with(mem("decisions/argo", "argo"))},
		{name: "hand-written edits on both sides",
			base: seed, ours: seed.with(mem("facts/alpha", "alpha")), theirs: seed.with(mem("facts/beta", "beta")),
			hb: handBase, ho: handOurs, ht: handTheirs, wantHand: handBoth},
		{name: "both create the root",
			base: nil, ours: setOf(mem("facts/alpha", "alpha")), theirs: setOf(mem("facts/beta", "beta"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var base []byte
			if c.base != nil {
				base = rootOf(t, c.hb, c.base)
			}
			ours, theirs := rootOf(t, c.ho, c.ours), rootOf(t, c.ht, c.theirs)
			got, conflict, err := compile.MergeRoot(base, ours, theirs, text)
			if err != nil || conflict {
				t.Fatalf("MergeRoot: conflict %v, error %v\n%s", conflict, err, got)
			}
			want := rootOf(t, c.wantHand, merged(c.base, c.ours, c.theirs))
			if !bytes.Equal(got, want) {
				t.Errorf("merged ROOT.md:\n%s\nwant what compile writes:\n%s", got, want)
			}
			// The plain text merge of the same files does conflict: the
			// driver is what makes the difference.
			if c.name == "both add in one category" {
				if _, conflict, _ := text(base, ours, theirs); !conflict {
					t.Errorf("git merge-file merged the tables without a conflict; the case tests nothing")
				}
			}
		})
	}
}

// TestMergeRootStaleNotConflicted covers merges the driver cannot get exactly
// right: the result is marker-free, and compile makes it exact.
func TestMergeRootStaleNotConflicted(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed"))
	// Both sides add the same memory (a cherry-pick): the count goes up twice.
	same := mem("facts/alpha", "alpha")
	// Extra categories added on each side, ours sorting after theirs.
	for name, sides := range map[string][2]set{
		"both add the same memory":      {seed.with(same), seed.with(same)},
		"extra categories out of order": {seed.with(mem("zeta/a", "a")), seed.with(mem("beta/b", "b"))},
	} {
		t.Run(name, func(t *testing.T) {
			base := rootOf(t, "", seed)
			got, conflict, err := compile.MergeRoot(base, rootOf(t, "", sides[0]), rootOf(t, "", sides[1]), text)
			if err != nil || conflict || compile.ConflictLine(got, false) != 0 {
				t.Fatalf("conflict %v, error %v:\n%s", conflict, err, got)
			}
			mems := merged(seed, sides[0], sides[1]).list()
			want := rootOf(t, "", merged(seed, sides[0], sides[1]))
			fixed, err := compile.Root(got, compile.Categories(cats, mems), mems)
			if err != nil || !bytes.Equal(fixed, want) {
				t.Errorf("compile after the merge: %v\n%s\nwant:\n%s", err, fixed, want)
			}
		})
	}
}

func TestMergeRootHandConflict(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed"))
	base := rootOf(t, handBase, seed)
	ours := rootOf(t, strings.Replace(handBase, "Ship it.", "Ship it by Friday.", 1), seed.with(mem("facts/alpha", "alpha")))
	theirs := rootOf(t, strings.Replace(handBase, "Ship it.", "Ship it by Monday.", 1), seed.with(mem("facts/beta", "beta")))
	got, conflict, err := compile.MergeRoot(base, ours, theirs, text)
	if err != nil || !conflict {
		t.Fatalf("conflict %v, error %v, want a conflict", conflict, err)
	}
	s := string(got)
	if !strings.Contains(s, "<<<<<<< ours\nShip it by Friday.\n=======\nShip it by Monday.\n>>>>>>> theirs\n") {
		t.Errorf("the person's conflict is not shown as git shows it:\n%s", s)
	}
	// The tables are merged, outside any conflict.
	mems := merged(seed, seed.with(mem("facts/alpha", "alpha")), seed.with(mem("facts/beta", "beta"))).list()
	want := rootOf(t, "", setOf(mems...))
	_, tables, _ := strings.Cut(string(want), "<!-- ocmem:begin registry -->")
	if !strings.HasSuffix(s, tables) {
		t.Errorf("tables after a hand-written conflict:\n%s\nwant them to end:\n%s", s, tables)
	}
	// Compile refuses to touch it until a person resolves the conflict.
	if _, err := compile.Root(got, compile.Categories(cats, mems), mems); !errors.Is(err, compile.ErrConflict) {
		t.Errorf("Root of a hand-conflicted file: %v, want ErrConflict", err)
	}
}

func TestMergeRootDamagedMarkers(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed"))
	base := rootOf(t, "", seed)
	ours := bytes.Replace(rootOf(t, "", seed), []byte("<!-- ocmem:end routing -->"), nil, 1)
	theirs := rootOf(t, "", seed.with(mem("facts/beta", "beta")))
	got, _, err := compile.MergeRoot(base, ours, theirs, text)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := text(base, ours, theirs)
	if !bytes.Equal(got, plain) {
		t.Errorf("with damaged markers MergeRoot is not a plain text merge:\n%s\nwant\n%s", got, plain)
	}
}

func TestMergeRootCRLF(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed"))
	crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
	base := crlf(rootOf(t, "", seed))
	ours := crlf(rootOf(t, "", seed.with(mem("facts/alpha", "alpha"))))
	theirs := crlf(rootOf(t, "", seed.with(mem("facts/beta", "beta"))))
	got, conflict, err := compile.MergeRoot(base, ours, theirs, text)
	if err != nil || conflict {
		t.Fatalf("conflict %v, error %v", conflict, err)
	}
	if want := crlf(rootOf(t, "", seed.with(mem("facts/alpha", "alpha"), mem("facts/beta", "beta")))); !bytes.Equal(got, want) {
		t.Errorf("CRLF merge:\n%q\nwant\n%q", got, want)
	}
}

// TestResolveCompiledConflicts is the path without the merge driver: git's
// text merge leaves conflict markers in the tables, and the next compile
// removes them.
func TestResolveCompiledConflicts(t *testing.T) {
	text := gitMergeFile(t)
	seed := setOf(mem("facts/seed", "seed"), mem("decisions/helm", "deploy"))
	ours, theirs := seed.with(mem("facts/alpha", "alpha")), seed.with(mem("facts/beta", "beta"), mem("rules/x", "x"))
	all := merged(seed, ours, theirs)
	for _, diff3 := range []bool{false, true} {
		base := rootOf(t, handBase, seed)
		a, b := rootOf(t, handOurs, ours), rootOf(t, handTheirs, theirs)
		doc, conflict, err := text(base, a, b)
		if err != nil || !conflict {
			t.Fatalf("git merge-file: conflict %v, error %v; the case tests nothing", conflict, err)
		}
		if diff3 {
			// merge.conflictStyle=diff3 adds the base between ||||||| and =======.
			doc = bytes.ReplaceAll(doc, []byte("=======\n"), []byte("||||||| base\n| stale | 0 | 0 |\n=======\n"))
		}
		if compile.ConflictLine(doc, false) == 0 {
			t.Fatalf("ConflictLine finds no conflict in:\n%s", doc)
		}
		mems := all.list()
		got, err := compile.Root(doc, compile.Categories(cats, mems), mems)
		if err != nil {
			t.Fatalf("Root of a text-merged file: %v\n%s", err, doc)
		}
		if want := rootOf(t, handBoth, all); !bytes.Equal(got, want) {
			t.Errorf("diff3 %v: compile after a text merge:\n%s\nwant:\n%s", diff3, got, want)
		}
	}

	// A hunk that spans both sections holds each marker twice; it is
	// still only compiled text, so compile resolves it.
	mems := all.list()
	want := rootOf(t, handBase, all)
	span := "<!-- ocmem:end registry -->\n\n<!-- ocmem:begin routing -->\n"
	facts := "| facts | 3 | 0 | [facts/index.md](facts/index.md) |\n"
	before, after, ok := strings.Cut(string(want), facts+span)
	if !ok {
		t.Fatalf("setup: no %q in\n%s", facts+span, want)
	}
	doc := before + "<<<<<<< HEAD\n" + strings.Replace(facts, "3", "2", 1) + span + "=======\n" + facts + span + ">>>>>>> theirs\n" + after
	got, err := compile.Root([]byte(doc), compile.Categories(cats, mems), mems)
	if err != nil || string(got) != string(want) {
		t.Errorf("a conflict across both sections: %v\n%s\nwant:\n%s\nfrom:\n%s", err, got, want, doc)
	}

	// A conflict in a person's text is theirs to resolve.
	base := rootOf(t, handBase, seed)
	a := rootOf(t, strings.Replace(handBase, "Ship it.", "Ship it by Friday.", 1), ours)
	b := rootOf(t, strings.Replace(handBase, "Ship it.", "Ship it by Monday.", 1), theirs)
	doc2, _, _ := text(base, a, b)
	if _, err := compile.ResolveCompiledConflicts(doc2); !errors.Is(err, compile.ErrConflict) {
		t.Errorf("a hand-written conflict: %v, want ErrConflict", err)
	}
	// An unclosed conflict block is not guessed at.
	if _, err := compile.ResolveCompiledConflicts([]byte("<<<<<<< ours\nx\n=======\n")); !errors.Is(err, compile.ErrConflict) {
		t.Errorf("an unclosed conflict: %v, want ErrConflict", err)
	}
}

func TestConflictLine(t *testing.T) {
	for _, c := range []struct {
		text   string
		fences bool
		want   int
	}{
		{"a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n", false, 2},
		{"a\r\n<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> main\r\n", false, 2},
		{"<<<<<<< HEAD\nx\n||||||| base\nw\n=======\ny\n>>>>>>> main\n", false, 1},
		{"no markers\n", false, 0},
		{"<<<<<<< only an opener\n", false, 0},      // stray, unbalanced: not a conflict
		{"x <<<<<<< not at line start\n", false, 0}, // not a marker line
		{"<<<<<<<< eight\n=======\n>>>>>>>> eight\n", false, 0},
		{"Example:\n```\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n```\n", true, 0},
		{"Example:\n```\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n```\n", false, 3},
		{"```\ncode\n```\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n", true, 4},
	} {
		if got := compile.ConflictLine([]byte(c.text), c.fences); got != c.want {
			t.Errorf("ConflictLine(%q, %v) = %d, want %d", c.text, c.fences, got, c.want)
		}
	}
}
