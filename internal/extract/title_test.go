package extract

import (
	"testing"

	"github.com/ocmem/ocmem/internal/options"
)

// The viewer lists sessions by title: each idle reads the session, and its
// title is logged when it is new or changed, not once per idle; a secret
// in it is masked.
func TestSessionTitleLoggedOnce(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(1, deployTalk)
	h.run(options.Options{})
	h.run(options.Options{})
	h.srv.mu.Lock()
	h.srv.session.Title = "deploy with " + githubToken(t)
	h.srv.mu.Unlock()
	h.run(options.Options{})
	got := h.log.lines("session title")
	if len(got) != 2 {
		t.Fatalf("%d title lines, want 2 (one per title): %v", len(got), got)
	}
	if got[0]["title"] != "fix the deploy" || got[0]["session"] != "ses_user" {
		t.Errorf("first title line %v", got[0])
	}
	if title, _ := got[1]["title"].(string); title == "" || title == "deploy with "+githubToken(t) {
		t.Errorf("a token in the title is logged as it is: %q", title)
	}
}
