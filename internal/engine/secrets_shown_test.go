package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// A memory holding a secret that no write took (written by hand, or
// before the scanner knew its shape) fails Inspect, named by file and
// kind of secret and never shown; what the model and the person get of
// it, the rules tier, the bodies, the hits and Recall, has it masked; the
// file itself is left as it is.
func TestHandWrittenSecret(t *testing.T) {
	r := newRoots(t)
	tok := fakeGitHubToken(42)
	pw := "Xk9v" + "Q2mLp7Rt"
	escaped := "ghp\\_" + tok[4:]
	writeMemory(t, r.global, &memory.Memory{ID: "rules/deploy-token", Kind: memory.KindRule, Summary: "Deploy with the CI token",
		Body: "Always deploy with " + tok + " from the runner.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	writeMemory(t, r.project, &memory.Memory{ID: "facts/ci-token", Kind: memory.KindFact, Summary: "CI deploys with " + tok,
		Body: "Rotated yearly.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	writeMemory(t, r.project, &memory.Memory{ID: "facts/shop-database", Kind: memory.KindFact, Summary: "The shop database DSN",
		LoadWhen: []string{"shop database"},
		Body:     "The shop service connects with\nshop:" + pw + "@tcp(db.internal:3306)/shop\nand the escaped " + escaped,
		Created:  testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	e := r.engine(options.Options{})
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	before := tree(t, filepath.Dir(r.global))

	shows := func(what, text string) {
		t.Helper()
		for _, s := range []string{tok[4:], tok[8:20], pw} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q:\n%s", what, s, text)
			}
		}
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Error("Inspect is OK with secrets in two memories")
	}
	var found []string
	for _, is := range rep.Issues {
		if is.Check != "secret" {
			continue
		}
		found = append(found, filepath.Base(is.Path))
		if is.Severity != SevError || strings.Contains(is.String(), tok[4:]) || strings.Contains(is.String(), pw) || strings.Contains(is.String(), tok[4:10]) {
			t.Errorf("issue %s: want an error that shows nothing of the secret", is)
		}
	}
	if len(found) != 3 {
		t.Errorf("secret issues in %q, want the three files: %v", found, issueStrings(t, rep))
	}
	for _, m := range rep.Memories {
		shows("inspect's listing", m.Summary)
	}
	for _, is := range rep.Issues {
		if is.Check == "secret" && strings.HasSuffix(is.Path, "deploy-token.md") && !strings.Contains(is.Message, "GitHub Personal Access Token in body") {
			t.Errorf("issue %s does not name the kind of secret and the field", is)
		}
		if is.Check == "secret" && strings.HasSuffix(is.Path, "shop-database.md") {
			lines := strings.Split(readString(t, is.Path), "\n")
			if is.Line < 1 || is.Line > len(lines) || !strings.Contains(lines[is.Line-1], "@tcp(") || !strings.Contains(is.Message, "DSN") {
				t.Errorf("issue %s: want the DSN's line of the file", is)
			}
		}
	}

	inj, err := e.Inject("how does the shop service reach its database", InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(inj.Rules, "Always deploy with ghp_") || !strings.Contains(inj.Bodies, "The shop service connects with") {
		t.Fatalf("the memories are not injected:\nrules: %s\nbodies: %s", inj.Rules, inj.Bodies)
	}
	shows("the rules tier", inj.Rules)
	shows("the outline", inj.Outline)
	shows("the bodies", inj.Bodies)
	for _, h := range inj.Hits {
		shows("a hit", h.Summary+h.Highlight+h.Body+strings.Join(h.LoadWhen, " "))
	}
	hits, err := e.Recall("shop database deploy token", RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 {
		t.Fatalf("recall found %d memories, want both", len(hits))
	}
	for _, h := range hits {
		shows("recall", h.Summary+h.Highlight+h.Body+strings.Join(h.LoadWhen, " "))
	}
	// A second injection in the session does not give the body again:
	// the session's marks are of the memory, not of its masked text.
	seen := map[string]bool{}
	for _, m := range inj.Marks {
		seen[m] = true
	}
	again, err := e.Inject("how does the shop service reach its database", InjectOptions{Seen: func(k string) bool { return seen[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if len(inj.Given) == 0 || len(again.Given) != 0 {
		t.Errorf("given %v, then %v: want the body once", inj.Given, again.Given)
	}
	if d := treeDiff(before, tree(t, filepath.Dir(r.global))); len(d) > 0 {
		t.Errorf("showing the memories changed files: %v", d)
	}
}
