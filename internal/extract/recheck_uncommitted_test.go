package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/testenv"
)

// TestRecheckUncommitted: a memory the model finds still true over an
// uncommitted edit of its anchored code is verified as that code stands:
// by its digest, with no commit, fresh while the edit stands and changed
// once it is thrown away.
func TestRecheckUncommitted(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	h := newHarness(t)
	code := filepath.Dir(h.dir)
	git := func(args ...string) { t.Helper(); testenv.Git(t, code, args...) }
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(code, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(code, "src", "a.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(code, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	write("package src // a v1\n")
	if err := os.WriteFile(filepath.Join(code, ".gitignore"), []byte(".memory/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	id := h.remember(engine.RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "about the a code",
		LoadWhen: []string{"a"}, Body: "See `src/a.go`.", Source: engine.FromPerson})
	write("package src // a v2, not committed\n")

	h.srv.reply = func(n int, req opencode.PromptRequest) (string, error) {
		if req.System != recheckSystem {
			return `{"memories": []}`, nil
		}
		return `{"verdict": "still_true"}`, nil
	}
	h.srv.addTurns(4, func(i int) (string, string) {
		return fmt.Sprintf("<memory id=%q scope=\"project\" kind=\"fact\" updated=\"x\">\n…\n</memory>\nquestion %d", id, i), "answer"
	})
	res := h.x.Run(context.Background(), h.e, Request{SessionID: h.srv.session.ID, ServerURL: "http://127.0.0.1:4096/",
		Options: options.Options{}, CodeDir: code})
	if res.Err != nil {
		t.Fatalf("result %+v", res)
	}
	if len(res.Rechecked) != 1 || res.Rechecked[0].Action != RecheckVerified {
		t.Fatalf("rechecked %+v, want %s verified", res.Rechecked, id)
	}
	if v := h.memories()[id].Verified; v.Commit != "" || len(v.Digests) != 1 {
		t.Errorf("verified %+v, want the digest and no commit", v)
	}
	if list, err := h.e.Stale(); err != nil || len(list) != 0 {
		t.Errorf("after the re-check, Stale = %+v, %v", list, err)
	}
	git("checkout", "--", "src/a.go")
	if list, err := h.e.Stale(); err != nil || len(list) != 1 || !strings.Contains(list[0].Why, "differs from the digest") {
		t.Errorf("after the edit was thrown away, Stale = %+v, %v; want it changed", list, err)
	}
}
