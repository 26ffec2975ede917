package compile_test

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/secrets/secrettest"
)

// TestCompiledFilesMaskSecrets: a secret a person wrote by hand into a
// memory's summary or triggers is masked in index.md and in ROOT.md's
// routing table, however they are compiled (from every memory, or from
// the tables a write keeps), the way ocmem masks what it shows; the rest
// of the line, and a memory without a secret, are as before.
func TestCompiledFilesMaskSecrets(t *testing.T) {
	g := secrettest.NewGen(t.Name())
	pat := "ghp_" + g.S(secrettest.Alnum, 36)
	key := "AKIA" + g.S(secrettest.Base32, 16)
	masked := func(s string) string {
		out, ok := secrets.Mask(s)
		if !ok || out == s {
			t.Fatalf("the scanner does not mask %q in place", s)
		}
		return out
	}
	cases := []struct {
		name    string
		m       *memory.Memory
		index   []string // in the index line
		routing []string // in ROOT.md
		secret  string
	}{
		{"summary", &memory.Memory{ID: "facts/ci", Kind: memory.KindFact, Summary: "CI deploys with " + pat, LoadWhen: []string{"deploy"}},
			[]string{"- [ci](ci.md) — CI deploys with " + masked(pat) + " · when: deploy"}, []string{"| deploy | [facts/ci](facts/ci.md) |"}, pat},
		{"one trigger", &memory.Memory{ID: "facts/aws", Kind: memory.KindFact, Summary: "The AWS account", LoadWhen: []string{key}},
			[]string{"- [aws](aws.md) — The AWS account · when: " + masked(key)}, []string{"| " + masked(key) + " | [facts/aws](facts/aws.md) |"}, key},
		{"among triggers", &memory.Memory{ID: "facts/aws", Kind: memory.KindFact, Summary: "The AWS account", LoadWhen: []string{"aws", "key " + key}},
			[]string{" · when: aws, key " + masked(key)}, []string{"| aws | [facts/aws](facts/aws.md) |", "| key " + masked(key) + " | [facts/aws](facts/aws.md) |"}, key},
	}
	plain := &memory.Memory{ID: "facts/plain", Kind: memory.KindFact, Summary: "Builds run on Linux", LoadWhen: []string{"build"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mems := []*memory.Memory{c.m, plain}
			tables := compile.NewTables(defaultCategories)
			for _, m := range mems {
				tables.Add(m)
			}
			byID := func(id string) *memory.Memory {
				for _, m := range mems {
					if m.ID == id {
						return m
					}
				}
				return nil
			}
			root, err := compile.Root(nil, defaultCategories, mems)
			if err != nil {
				t.Fatal(err)
			}
			troot, err := tables.Root(nil)
			if err != nil {
				t.Fatal(err)
			}
			outputs := map[string]struct {
				text string
				want []string
			}{
				"index.md":          {string(compile.Index("facts", mems)), c.index},
				"index.md (tables)": {string(tables.Index("facts", byID)), c.index},
				"ROOT.md":           {string(root), c.routing},
				"ROOT.md (tables)":  {string(troot), c.routing},
			}
			for name, o := range outputs {
				if strings.Contains(o.text, c.secret) {
					t.Errorf("%s holds the secret:\n%s", name, o.text)
				}
				for _, w := range o.want {
					if !strings.Contains(o.text, w) {
						t.Errorf("%s lacks %q:\n%s", name, w, o.text)
					}
				}
			}
			if line := compile.IndexLine(plain); line != "- [plain](plain.md) — Builds run on Linux · when: build" {
				t.Errorf("a line without a secret changed: %q", line)
			}
		})
	}
	// The memory itself is not touched: its fields keep what the person wrote.
	if !strings.Contains(cases[0].m.Summary, pat) {
		t.Errorf("compiling changed the memory's summary: %q", cases[0].m.Summary)
	}
}
