package v1serve

import (
	"context"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestBadOptionKeepsMemory: on OpenCode 1.18, a plugin option typed
// wrong in the person's config ("autoExtract": "no") and a key in the
// wrong case cost those options alone: the model still gets the hard
// rule, the outline and the body, and a warning toast names the key, the
// value and the fix, once for the session.
func TestBadOptionKeepsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e := e2e.NewOcmemEnv(t)
	deploy := e.RememberDeploy()
	e.RememberRule()
	e2e.SetPluginOptions(t, e, map[string]any{"autoExtract": "no", "MaxInjectChars": 100})
	e.Fake.SetResponder(fakellm.Script(fakellm.Text("ok"), fakellm.Text("ok")))
	srv := e.Serve()
	ctx := context.Background()
	ev, err := srv.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	session := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, session, "部署之前要做什么? deploy")
	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) == 0 {
		t.Fatal("no agent request")
	}
	first := agent[len(agent)-1]
	sys := e2e.OcmemSystem(t, first, deploy.ID)
	if !strings.Contains(sys, e2e.RuleBody) {
		t.Errorf("the hard rule is not in the system prompt:\n%s", e2e.Tail(sys, 3000))
	}
	if !strings.Contains(string(first.Raw), "DEPLOY-BODY") {
		t.Errorf("the body is not given:\n%s", e2e.Tail(string(first.Raw), 3000))
	}
	e2e.MustPrompt(t, srv, ctx, session, "and after the deploy?")
	var warnings []string
	for _, m := range waitToasts(ev, 2) {
		if strings.HasPrefix(m, "warning: ") {
			warnings = append(warnings, m)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("warning toasts %q; want one, for the session", warnings)
	}
	for _, want := range []string{`autoExtract = "no"`, "want true or false", `"MaxInjectChars" is not an option; did you mean "maxInjectChars"?`, "doctor"} {
		if !strings.Contains(warnings[0], want) {
			t.Errorf("warning %q lacks %q", warnings[0], want)
		}
	}
}
