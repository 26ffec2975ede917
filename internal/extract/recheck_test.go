package extract

import (
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
)

// TestRecheck: after an extraction, the stale memories given in its turns
// (and the hard rules in force, in every turn's rules tier) are shown to the model with their code now. "Still true" moves a
// memory's reference point, "updated" writes a memory that supersedes it
// (for a hard rule, a proposal: the rule stays in force), "no longer true"
// marks it outdated and lists it first; a memory not given in the turns,
// asked about already in the same state, or marked outdated, is not asked
// about.
func TestRecheck(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir()) // no session log of given bodies: the turns' frames say
	h := newHarness(t)
	code := filepath.Dir(h.dir)
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(code, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"still.go", "update.go", "rule.go", "wrong.go", "unused.go"}
	for _, f := range files {
		write("src/"+f, "package src // "+f+" v1\n")
	}
	ids := map[string]string{}
	for _, f := range files {
		kind := memory.KindFact
		if f == "rule.go" {
			kind = memory.KindRule
		}
		name := strings.TrimSuffix(f, ".go")
		ids[name] = h.remember(engine.RememberRequest{Category: "facts", Kind: kind, Summary: "about the " + name + " code",
			LoadWhen: []string{name}, Body: "See `src/" + f + "`.", Source: engine.FromPerson})
	}
	if name := "rules/about-rule-code"; ids["rule"] != "facts/about-rule-code" {
		t.Fatalf("rule written as %s, want %s in facts", ids["rule"], name)
	}
	for _, f := range files {
		write("src/"+f, "package src // "+f+" v2, changed\n")
	}
	given := func(names ...string) func(i int) (string, string) {
		return func(i int) (string, string) {
			var b strings.Builder
			for _, n := range names {
				fmt.Fprintf(&b, "<memory id=%q scope=\"project\" kind=\"fact\" updated=\"x\">\n…\n</memory>\n", ids[n])
			}
			return b.String() + "question " + fmt.Sprint(i), "answer"
		}
	}
	verdicts := map[string]string{
		"still":  `{"verdict": "still_true"}`,
		"update": `{"verdict": "updated", "summary": "about the update code, version two", "body": "See src/update.go, v2."}`,
		"rule":   `{"verdict": "updated", "summary": "about the rule code, version two", "body": "v2."}`,
		"wrong":  `{"verdict": "no_longer_true", "reason": "the code says otherwise"}`,
	}
	var asked []string
	h.srv.reply = func(n int, req opencode.PromptRequest) (string, error) {
		if req.System != recheckSystem {
			return `{"memories": []}`, nil
		}
		for name, v := range verdicts {
			if strings.Contains(req.Parts[0].Text, "("+ids[name]) || strings.Contains(req.Parts[0].Text, ", "+ids[name]+")") {
				asked = append(asked, name)
				if !strings.Contains(req.Parts[0].Text, "=== src/"+name+".go\npackage src // "+name+".go v2, changed") {
					t.Errorf("the prompt for %s lacks its code now:\n%s", name, req.Parts[0].Text)
				}
				return v, nil
			}
		}
		return "", fmt.Errorf("no verdict for %s", req.Parts[0].Text)
	}

	// The rule in force is in the rules tier of every turn, never framed
	// as a body: it was used all the same.
	h.srv.addTurns(4, given("still", "update"))
	res := h.run(options.Options{})
	if res.Err != nil {
		t.Fatalf("result %+v", res)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"rule", "still", "update"}) {
		t.Errorf("asked about %v, want the three given", asked)
	}
	got := map[string]string{}
	for _, r := range res.Rechecked {
		got[r.ID] = r.Action
	}
	want := map[string]string{ids["still"]: RecheckVerified, ids["update"]: RecheckSuperseded, ids["rule"]: RecheckSuperseded}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rechecked %v, want %v", got, want)
	}
	mems := h.memories()
	if m := mems[ids["still"]]; m.Verified.Digests["src/still.go"] == "" || m.SupersededBy != "" {
		t.Errorf("still true: %+v", m)
	}
	if m := mems[ids["update"]]; m.SupersededBy != "facts/about-update-code-version-two" {
		t.Errorf("updated: superseded_by %q", m.SupersededBy)
	}
	if n := mems["facts/about-update-code-version-two"]; n == nil || n.Supersedes != ids["update"] || n.Kind != memory.KindFact {
		t.Errorf("the update: %+v", n)
	}
	if m := mems[ids["rule"]]; m.Kind != memory.KindRule || m.SupersededBy != "" {
		t.Errorf("the rule changed: kind %s, superseded_by %q", m.Kind, m.SupersededBy)
	}
	if p := mems["facts/about-rule-code-version-two"]; p == nil || p.Kind != memory.KindRuleProposal || p.Supersedes != ids["rule"] {
		t.Errorf("the rule's update: %+v", p)
	}
	stale := func() []string {
		t.Helper()
		list, err := h.e.Stale()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	// The rule, whose update waits for a person, is still stale.
	if s := stale(); !slices.Equal(s, []string{ids["rule"], ids["unused"], ids["wrong"]}) {
		t.Errorf("stale after the first run: %v", s)
	}

	// No longer true: the memory alone is rewritten, marked outdated with
	// the model's reason, and listed first; asked once.
	before := tree(t, h.dir)
	asked = nil
	h.srv.addTurns(4, given("wrong", "rule"))
	res = h.run(options.Options{})
	if len(res.Rechecked) != 1 || res.Rechecked[0].Action != RecheckNoLonger || !slices.Equal(asked, []string{"wrong"}) {
		t.Errorf("second run: rechecked %+v, asked %v; want wrong alone (the rule was asked about in this state)", res.Rechecked, asked)
	}
	wrongPath := filepath.Join(h.dir, filepath.FromSlash(ids["wrong"])+".md")
	if d := changedFiles(before, tree(t, h.dir)); !slices.Equal(d, []string{wrongPath}) {
		t.Errorf("no longer true wrote %v, want %s alone", d, wrongPath)
	}
	if o := h.memories()[ids["wrong"]].Outdated; o.Reason != "the code says otherwise" || o.Time == 0 {
		t.Errorf("no longer true: outdated %+v", o)
	}
	if file := tree(t, h.dir)[wrongPath]; !strings.Contains(file, "\noutdated:\n") || !strings.Contains(file, "  reason: the code says otherwise\n") {
		t.Errorf("the file lacks its outdated mark:\n%s", file)
	}
	if s := stale(); len(s) == 0 || s[0] != ids["wrong"] {
		t.Errorf("stale after no longer true: %v; want the outdated one first", s)
	}
	asked = nil
	h.srv.addTurns(4, given("wrong"))
	if res = h.run(options.Options{}); len(res.Rechecked) != 0 || len(asked) != 0 {
		t.Errorf("third run asked again: %+v", res.Rechecked)
	}

	// The prompts are logged, as extraction's are.
	var logged int
	for _, l := range h.log.lines("") {
		if l["msg"] == "extraction request" && l["system"] == recheckSystem {
			logged++
		}
	}
	if logged != 4 {
		t.Errorf("%d re-check prompts logged, want 4", logged)
	}
}

// TestRecheckRuleNoLonger: a hard rule the model finds no longer true is
// not marked: it stays in force, listed as stale for a person.
func TestRecheckRuleNoLonger(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	h := newHarness(t)
	code := filepath.Join(filepath.Dir(h.dir), "src", "rule.go")
	if err := os.MkdirAll(filepath.Dir(code), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(code, []byte("package src // v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := h.remember(engine.RememberRequest{Category: "facts", Kind: memory.KindRule, Summary: "about the rule code",
		LoadWhen: []string{"rule"}, Body: "See `src/rule.go`.", Source: engine.FromPerson})
	if err := os.WriteFile(code, []byte("package src // v2, changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.reply = func(n int, req opencode.PromptRequest) (string, error) {
		if req.System != recheckSystem {
			return `{"memories": []}`, nil
		}
		return `{"verdict": "no_longer_true", "reason": "the code says otherwise"}`, nil
	}
	before := tree(t, h.dir)
	h.srv.addTurns(4, func(i int) (string, string) { return "question " + fmt.Sprint(i), "answer" })
	res := h.run(options.Options{})
	if len(res.Rechecked) != 1 || res.Rechecked[0].Action != RecheckNoLonger || !strings.Contains(res.Rechecked[0].Why, "stays in force") {
		t.Fatalf("rechecked %+v; want the rule, no longer true, left in force", res.Rechecked)
	}
	if d := changedFiles(before, tree(t, h.dir)); len(d) != 0 {
		t.Errorf("a rule found no longer true wrote %v", d)
	}
	list, err := h.e.Stale()
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].State != "changed" {
		t.Errorf("stale: %+v, %v; want the rule, changed", list, err)
	}
	rules, err := h.e.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(rules, func(r engine.RuleEntry) bool { return r.ID == id }); i < 0 || !rules[i].InForce {
		t.Errorf("the rule is not in force: %+v", rules)
	}
}

// tree is every file under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".state.json") && !strings.Contains(p, ".lock") {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func changedFiles(a, b map[string]string) []string {
	var out []string
	for p, s := range b {
		if a[p] != s {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}
