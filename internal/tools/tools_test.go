package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/toolspec"
)

func newEngine(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	d := t.TempDir()
	project := filepath.Join(d, "project")
	return engine.New(engine.Config{GlobalDir: filepath.Join(d, "global"), ProjectDir: project}), project
}

func TestReplies(t *testing.T) {
	e, project := newEngine(t)
	r, err := Remember(e, toolspec.RememberArgs{Category: "facts", Kind: "fact", Summary: "Kafka retention is per partition",
		Body: "b", LoadWhen: []string{"kafka"}}, engine.FromModel, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, "Remembered project:facts/") || !strings.HasPrefix(r.Notice, "remembered project:facts/") || r.Written == nil {
		t.Errorf("remember: %+v", r)
	}
	id := r.Written.ID

	rule, err := Remember(e, toolspec.RememberArgs{Category: "rules", Kind: "rule", Summary: "Always run make check", Body: "b"}, engine.FromModel, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rule.Text, "rule proposal") || !strings.HasPrefix(rule.Notice, "rule proposal project:rules/") {
		t.Errorf("a model's rule: %+v", rule)
	}

	rec, err := Recall(e, toolspec.RecallArgs{Query: "kafka retention"}, "")
	if err != nil || len(rec.IDs) == 0 || rec.IDs[0] != "project:"+id || !strings.Contains(rec.Text, "Kafka retention") {
		t.Errorf("recall: %+v, %v", rec, err)
	}

	f, err := Forget(e, toolspec.ForgetArgs{ID: id}, engine.FromModel)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.Text, "Forgot project:"+id) || !strings.HasPrefix(f.Notice, "forgot project:"+id) {
		t.Errorf("forget: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(project, id+".md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forget left the file: %v", err)
	}

	ins, issues, err := Inspect(e, "")
	if err != nil || !strings.Contains(ins.Text, "Consistency: OK") || len(issues) != 0 {
		t.Errorf("inspect: %+v %v %v", ins, issues, err)
	}
}

// TestRefusals: a refused call says what did not happen, the same for
// every edge; arguments a tool cannot act on are ErrInvalid.
func TestRefusals(t *testing.T) {
	e, _ := newEngine(t)
	rule, err := Remember(e, toolspec.RememberArgs{Category: "rules", Kind: "rule", Summary: "Never force-push", Body: "b"}, engine.FromPerson, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		call    func() error
		want    string
		invalid bool
	}{
		{"empty query", func() error { _, err := Recall(e, toolspec.RecallArgs{Query: " "}, ""); return err }, "query is empty", true},
		{"negative limit", func() error { _, err := Recall(e, toolspec.RecallArgs{Query: "q", Limit: -5}, ""); return err }, "limit is -5", true},
		{"bad scope", func() error {
			_, err := Remember(e, toolspec.RememberArgs{Category: "facts", Kind: "fact", Summary: "s", Body: "b", Scope: "team"}, engine.FromModel, "")
			return err
		}, `scope "team" is not global or project; nothing was written`, true},
		{"path outside", func() error {
			_, err := Remember(e, toolspec.RememberArgs{Category: "../etc", Kind: "fact", Summary: "s", Body: "b"}, engine.FromModel, "")
			return err
		}, "; nothing was written", false},
		{"unknown id", func() error { _, err := Forget(e, toolspec.ForgetArgs{ID: "facts/none"}, engine.FromModel); return err }, "; nothing was deleted", false},
		{"a rule, from the model", func() error {
			_, err := Forget(e, toolspec.ForgetArgs{ID: rule.Written.ID, Scope: string(store.Project)}, engine.FromModel)
			return err
		}, "only a person removes one (`ocmem forget " + rule.Written.ID + "`); nothing was deleted", false},
	} {
		err := tt.call()
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, ErrInvalid) != tt.invalid {
			t.Errorf("%s: %v, want an error containing %q (invalid: %v)", tt.name, err, tt.want, tt.invalid)
		}
	}
}

// A model's rule with guards, as its tool call carries them: a proposal
// whose file holds the block, in the given order, listed for the person
// with what it would stop; its guard stops nothing until accepted.
func TestRememberRuleWithGuards(t *testing.T) {
	e, _ := newEngine(t)
	remember, _ := toolspec.Lookup("remember")
	var a toolspec.RememberArgs
	raw := `{"category": "rules", "kind": "rule", "summary": "Never force-push main", "body": "Open a pull request.",
		"enforce": {"bash": {"git push *--force*": "deny", "git push *--force-with-lease*": "allow"}, "edit": {"dist/**": "ask"}}}`
	if err := remember.DecodeArgs([]byte(raw), &a); err != nil {
		t.Fatal(err)
	}
	r, err := Remember(e, a, engine.FromModel, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Written.Kind != memory.KindRuleProposal {
		t.Fatalf("stored as %s", r.Written.Kind)
	}
	data, err := os.ReadFile(r.Written.Path)
	if err != nil {
		t.Fatal(err)
	}
	block := "enforce:\n  bash:\n    \"git push *--force*\": deny\n    \"git push *--force-with-lease*\": allow\n  edit:\n    \"dist/**\": ask\n---\n"
	if !strings.Contains(string(data), block) {
		t.Errorf("the proposal's file:\n%s\nwant the block\n%s", data, block)
	}
	if v, err := e.Check(engine.ToolCall{Tool: "bash", Args: map[string]any{"command": "git push --force origin main"}}); err != nil || v.Stopped() {
		t.Errorf("a proposal's guard: %+v, %v", v, err)
	}
	rules, err := e.Rules()
	if err != nil {
		t.Fatal(err)
	}
	shown := render.Rules(rules)
	for _, want := range []string{`would stop, once in force: bash "git push *--force*" → deny`, `would stop, once in force: edit "dist/**" → ask`} {
		if !strings.Contains(shown, want) {
			t.Errorf("ocmem rules lacks %q:\n%s", want, shown)
		}
	}
}

// Guards that are wrong, or on a memory that is not a rule, refuse the
// call: the model reads why, and nothing is written.
func TestRememberRefusesBadGuards(t *testing.T) {
	for _, c := range []struct{ name, kind, enforce, want string }{
		{"unknown action", "rule", `{"bash": {"rm -rf *": "block"}}`, `want deny, ask or allow, got "block"`},
		{"not a mapping", "rule", `["rm -rf *"]`, "want a mapping of tool names to patterns"},
		{"not a rule", "pitfall", `{"bash": {"rm -rf *": "deny"}}`, "enforce is for a rule only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, project := newEngine(t)
			a := toolspec.RememberArgs{Category: "rules", Kind: c.kind, Summary: "Never delete the tree", Body: "b", Enforce: []byte(c.enforce)}
			_, err := Remember(e, a, engine.FromModel, "")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasSuffix(err.Error(), "; nothing was written") {
				t.Fatalf("error %v, want one with %q that says nothing was written", err, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(project, "rules")); len(entries) > 0 {
				t.Errorf("%d files written by a refused call", len(entries))
			}
		})
	}
}

// memory_remember's anchors reach the file; an anchor naming nothing in
// the project is refused, and nothing is written.
func TestRememberAnchors(t *testing.T) {
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, "srv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "srv", "a.go"), []byte("package srv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(d, ".memory")
	e := engine.New(engine.Config{ProjectDir: project})
	r, err := Remember(e, toolspec.RememberArgs{Category: "facts", Kind: "fact", Summary: "srv holds the server",
		Body: "b", Anchors: []string{"srv/a.go"}}, engine.FromModel, "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(r.Written.Path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.Parse(data)
	if err != nil || len(m.Anchors) != 1 || m.Anchors[0] != "srv/a.go" || len(m.Verified.Digests) != 1 {
		t.Errorf("written anchors %q, verified %+v, %v", m.Anchors, m.Verified, err)
	}
	_, err = Remember(e, toolspec.RememberArgs{Category: "facts", Kind: "fact", Summary: "srv holds the client",
		Body: "b", Anchors: []string{"srv/b.go"}}, engine.FromModel, "")
	if err == nil || !strings.Contains(err.Error(), "srv/b.go: no file or folder srv/b.go") || !strings.HasSuffix(err.Error(), "nothing was written") {
		t.Errorf("an anchor naming nothing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, "facts", "srv-holds-the-client.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused remember wrote: %v", err)
	}
}
