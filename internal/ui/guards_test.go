package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
)

// The rules page shows each rule's guards; the session page each stop,
// linked to the rule that made it.
func TestGuardsShown(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "ocmem.log")
	line := `{"time":"2026-12-01T10:01:00Z","level":"INFO","msg":"tool stopped","session":"ses_g","call":"c1","tool":"bash","subject":"git push -f origin main","rule":"rules/guarded","scope":"global","pattern":"git push -f*","action":"deny"}` + "\n"
	if err := os.WriteFile(logPath, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Config{LogPath: logPath, LogPoll: 20 * time.Millisecond})
	rule := "---\nid: rules/guarded\nkind: rule\nsummary: never force-push main\nenforce:\n  bash: { \"git push -f*\": deny, \"git push -f --dry-run*\": allow }\n---\n"
	if err := os.WriteFile(filepath.Join(f.global, "rules", "guarded.md"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	f.e.Invalidate()
	_, body := f.get("/rules")
	for _, want := range []string{`stops: <code>bash "git push -f*" → deny</code>`, `except: <code>bash "git push -f --dry-run*" → allow</code>`} {
		if !strings.Contains(section(body, "rules"), want) {
			t.Errorf("the rules page lacks %q:\n%s", want, section(body, "rules"))
		}
	}
	_, body = f.get("/session?id=ses_g")
	if !strings.Contains(body, "ocmem stopped the model&#39;s bash call &#34;git push -f origin main&#34;: it breaks the hard rule rules/guarded") ||
		!strings.Contains(body, `href="/memory?id=rules%2Fguarded&amp;scope=global"`) {
		t.Errorf("the session page does not show the stop:\n%s", body)
	}
}

// A model's rule with guards waits among the proposals, showing what it
// would stop; the viewer's Accept puts its guard in force.
func TestProposedGuardAccepted(t *testing.T) {
	f := newFixture(t, Config{})
	w, err := f.e.Remember(engine.RememberRequest{Scope: engine.Global, Category: "rules", Kind: memory.KindRule,
		Summary: "Never force-push main", Body: "Open a pull request.", Source: engine.FromModel,
		Enforce: []memory.Guard{{Tool: "bash", Pattern: "git push --force*", Action: memory.ActionDeny}}})
	if err != nil {
		t.Fatal(err)
	}
	push := engine.ToolCall{Tool: "bash", Args: map[string]any{"command": "git push --force origin main"}}
	_, body := f.get("/rules")
	if want := `would stop, once in force: <code>bash "git push --force*" → deny</code>`; !strings.Contains(section(body, "proposals"), want) {
		t.Errorf("the proposals lack %q:\n%s", want, section(body, "proposals"))
	}
	if v, err := f.e.Check(push); err != nil || v.Stopped() {
		t.Fatalf("a proposal's guard: %+v, %v", v, err)
	}
	form := url.Values{"scope": {"global"}, "id": {w.ID}, "csrf": {f.s.csrf}, "shown": {shownOn(body, w.ID)}}
	if code, b, _ := f.post("/accept", form, http.Header{"Origin": {"http://127.0.0.1:" + f.port()}}); code != http.StatusSeeOther {
		t.Fatalf("accept: %d %s", code, b)
	}
	f.e.Invalidate()
	if v, err := f.e.Check(push); err != nil || v.Action != "deny" || v.Rule == nil || v.Rule.ID != w.ID {
		t.Errorf("after the viewer's Accept: %+v, %v", v, err)
	}
}
