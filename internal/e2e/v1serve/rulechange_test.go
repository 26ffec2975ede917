package v1serve

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestHandEditedRuleNotInForce: in the real OpenCode, the person's own
// rule is a hard rule at once; after they edit it by hand, the next turn
// gives the model the rule only as the repository's proposal (not the new
// text as a rule), and a warning toast tells the person, once, what to do.
func TestHandEditedRuleNotInForce(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	rule := e.RememberRule()
	e.Fake.SetResponder(func(fakellm.Request) fakellm.Reply { return fakellm.Text("ok") })
	srv := e.Serve()
	ctx := context.Background()
	ev, err := srv.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	session := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, session, "hello")
	agent := fakellm.Agent(e.Fake.Requests())
	if sys := agent[len(agent)-1].SystemText(); !strings.Contains(sys, e2e.RuleBody) || strings.Contains(sys, "# Proposed by this repository") {
		t.Fatalf("the person's own rule is not a hard rule:\n%s", sys)
	}

	b, err := os.ReadFile(rule.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rule.Path, append(b, []byte("HAND-EDIT: also never push tags.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	e2e.MustPrompt(t, srv, ctx, session, "hello again")
	agent = fakellm.Agent(e.Fake.Requests())
	sys := agent[len(agent)-1].SystemText()
	if strings.Contains(sys, "HAND-EDIT") || strings.Contains(sys, e2e.RuleBody) || !strings.Contains(sys, "# Proposed by this repository") {
		t.Errorf("after the hand edit the rule is still a hard rule, or its new text is:\n%s", sys)
	}
	e2e.MustPrompt(t, srv, ctx, session, "and once more")
	// Toasts are not awaited by the hooks: wait for the warning a little.
	var warned []string
	deadline := time.Now().Add(5 * time.Second)
	for len(warned) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		warned = warned[:0]
		for _, m := range toasts(ev) {
			if strings.Contains(m, "changed since you accepted this repository's rules") {
				warned = append(warned, m)
			}
		}
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "warning: ") || !strings.Contains(warned[0], "`ocmem rules`") {
		t.Errorf("toasts about the changed rule: %q, want one warning", warned)
	}
}

// TestOwnRootMDRuleToldHowToConfirm: in the real OpenCode, a rule the
// person types into the project's ROOT.md is the repository's proposal
// until confirmed; a warning toast says so once, naming `ocmem trust`,
// and after `ocmem trust` the next turn has it as a hard rule.
func TestOwnRootMDRuleToldHowToConfirm(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	e.WriteFile(".memory/ROOT.md", "# Memory\n\n## Hard rules\n\n- ROOT-RULE: never force-push to main.\n")
	e.Fake.SetResponder(func(fakellm.Request) fakellm.Reply { return fakellm.Text("ok") })
	srv := e.Serve()
	ctx := context.Background()
	ev, err := srv.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	session := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, session, "hello")
	e2e.MustPrompt(t, srv, ctx, session, "hello again")
	agent := fakellm.Agent(e.Fake.Requests())
	if sys := agent[len(agent)-1].SystemText(); !strings.Contains(sys, "> - ROOT-RULE") || !strings.Contains(sys, "# Proposed by this repository") {
		t.Fatalf("the unconfirmed ROOT.md rule is not the repository's proposal:\n%s", sys)
	}
	var told []string
	deadline := time.Now().Add(5 * time.Second)
	for len(told) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		told = told[:0]
		for _, m := range toasts(ev) {
			if strings.Contains(m, "confirm them with `ocmem trust`") {
				told = append(told, m)
			}
		}
	}
	if len(told) != 1 || !strings.HasPrefix(told[0], "warning: ") {
		t.Errorf("toasts about ROOT.md's rules: %q, want one warning naming `ocmem trust`", told)
	}

	e.RunOcmem("trust")
	e2e.MustPrompt(t, srv, ctx, session, "and once more")
	agent = fakellm.Agent(e.Fake.Requests())
	if sys := agent[len(agent)-1].SystemText(); !strings.Contains(sys, "\n- ROOT-RULE: never force-push to main.") || strings.Contains(sys, "# Proposed by this repository") {
		t.Errorf("after `ocmem trust` the rule is not a hard rule:\n%s", sys)
	}
}
