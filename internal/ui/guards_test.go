package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
