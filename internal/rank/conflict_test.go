package rank

import (
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// A project memory overrides a global one on its topic when their triggers
// say it in different languages: the global preference's 格式化 Python 代码,
// 文档字符串风格 and 行宽 are the project rule's "format this file",
// "docstring style" and "line length".
func TestProjectOverridesGlobalAcrossLanguages(t *testing.T) {
	c, metas := build(
		doc{summary: "Style is ruff with line length 119 and Google-style docstrings", triggers: "format this file\ndocstring style\nline length\nimport order",
			body: "make style runs ruff check --fix and ruff format",
			meta: Meta{ID: "rules/ruff-style", LoadWhen: []string{"format this file", "docstring style", "line length", "import order"}, Kind: memory.KindRule}},
		doc{summary: "For my own Python code: black with line length 88 and numpy docstring style", triggers: "格式化 Python 代码\n文档字符串风格\n行宽",
			body: "pyproject sets line-length = 88",
			meta: Meta{ID: "preferences/black-88", Scope: memory.Global, LoadWhen: []string{"格式化 Python 代码", "文档字符串风格", "行宽"}, Kind: memory.KindPreference}},
	)
	const q = "which line length and docstring style for my Python code?"
	for _, mode := range []Mode{Inject, Search} {
		// Without the override both are hits: the test needs them to be.
		off := ids(metas, Rank(c, q, Params{Mode: mode, Tuning: &Tuning{ConflictOverlap: 1.01}}).Hits)
		if !slices.Contains(off, "preferences/black-88") || !slices.Contains(off, "rules/ruff-style") {
			t.Fatalf("%s, no override: got %v, want both memories", mode, off)
		}
		got := ids(metas, Rank(c, q, Params{Mode: mode}).Hits)
		if len(got) == 0 || got[0] != "rules/ruff-style" || slices.Contains(got, "preferences/black-88") {
			t.Errorf("%s: got %v, want rules/ruff-style and not preferences/black-88", mode, got)
		}
	}
}

// A translation bridges two languages, never two words of one: composition
// and element share the headword 成分, and say different things. A list of
// triggers that says one word in both languages weighs it once.
func TestTopicOverlap(t *testing.T) {
	c, _ := build(
		doc{triggers: "composition api\nscript setup", meta: Meta{ID: "a", LoadWhen: []string{"composition api", "script setup"}}},
		doc{triggers: "element plus\non-demand import", meta: Meta{ID: "b", LoadWhen: []string{"element plus", "on-demand import"}}},
		doc{triggers: "node version\nNode 版本\nnvm", meta: Meta{ID: "c", LoadWhen: []string{"node version", "Node 版本", "nvm"}}},
		doc{triggers: "Go 版本", meta: Meta{ID: "d", LoadWhen: []string{"Go 版本"}}},
		doc{triggers: "项目用哪个 Go 版本", meta: Meta{ID: "e", LoadWhen: []string{"项目用哪个 Go 版本"}}},
	)
	if got := c.topicOverlap(c.topicOf(0), c.triggerTerms(1)); got != 0 {
		t.Errorf("composition api / element plus: overlap %.3f, want 0", got)
	}
	// node, version and 版本, nvm: three concepts, not four.
	if got := len(c.topicOf(2).concepts); got != 3 {
		t.Errorf("node version, Node 版本, nvm: %d concepts, want 3", got)
	}
	if got := c.topicOverlap(c.topicOf(3), c.triggerTerms(4)); got < 0.99 {
		t.Errorf("Go 版本 / 项目用哪个 Go 版本: overlap %.3f, want 1 (the second holds both words of the first)", got)
	}
}

// Concepts bridges the two languages without a corpus, and a word written
// in both is one concept.
func TestConcepts(t *testing.T) {
	has := func(k Concept, term string) bool { return slices.Contains(k.Terms, term) }
	ks := Concepts("deploy")
	if len(ks) != 1 || ks[0].Own != 1 || ks[0].Terms[0] != "deploy" || !has(ks[0], "部署") {
		t.Errorf("Concepts(deploy) = %v", ks)
	}
	if ks := Concepts("部署"); len(ks) != 1 || !has(ks[0], "deploy") {
		t.Errorf("Concepts(部署) = %v", ks)
	}
	if ks := Concepts("deploy", "部署"); len(ks) != 1 || ks[0].Own != 2 {
		t.Errorf("Concepts(deploy, 部署) = %v, want one concept", ks)
	}
	if ks := Concepts(""); len(ks) != 0 {
		t.Errorf("Concepts() = %v", ks)
	}
}
