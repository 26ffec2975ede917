package extraction

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// ocmemPluginPath is the plugin file `ocmem install` registered in the
// global config.
func ocmemPluginPath(t *testing.T, e *e2e.ExtractEnv) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.ConfigDir(), "opencode.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Plugin []any `json:"plugin"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, p := range cfg.Plugin {
		s, _ := p.(string)
		if tuple, ok := p.([]any); ok && len(tuple) > 0 {
			s, _ = tuple[0].(string)
		}
		if strings.Contains(s, "ocmem") {
			return s
		}
	}
	t.Fatalf("no ocmem plugin in the global config: %s", b)
	return ""
}

// TestProjectExtractModelNeedsTrust: a repository's opencode.json
// registers ocmem with the most expensive model as its extractModel. In
// the real OpenCode, while the user has not trusted the project,
// extraction still asks the cheapest suitable model; once the user runs
// `ocmem trust`, the project's choice applies.
func TestProjectExtractModelNeedsTrust(t *testing.T) {
	e2e.SkipShort(t)
	e := e2e.NewExtractEnv(t)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Config["plugin"] = []any{e2e.PluginTuple(ocmemPluginPath(t, e), map[string]any{
		"minTurns": 1, "extractModel": map[string]any{"providerID": e2e.ProviderID, "id": "expensive"}})}
	e.WriteConfig()
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	srv := e.Serve()

	e.Conversation(srv, e2e.PnpmMarker, "we moved to pnpm 9 last week")
	reqs := e.Extractions()
	if len(reqs) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(reqs))
	}
	if reqs[0].Body.Model != "cheap" {
		t.Errorf("untrusted project: extraction asked %q, want cheap (the repository's extractModel ignored)", reqs[0].Body.Model)
	}

	e.RunOcmem("trust")
	e.Conversation(srv, e2e.PnpmMarker, "and the lockfile is pnpm-lock.yaml")
	reqs = e.Extractions()
	if len(reqs) != 2 {
		t.Fatalf("%d extraction requests, want 2", len(reqs))
	}
	if reqs[1].Body.Model != "expensive" {
		t.Errorf("trusted project: extraction asked %q, want the project's expensive", reqs[1].Body.Model)
	}
}

// TestProjectExtractionFrequencyNeedsTrust: a repository's opencode.json
// sets minTurns 1 and extractIdleSeconds 1, which the user's global config
// leaves unset: extraction after every turn, each a billed model request.
// In the real OpenCode, while the user has not trusted the project, a
// turn goes idle without an extraction (1 of the default 4 turns), and
// none follows a few idle seconds later; once the user runs `ocmem trust`,
// the project's minTurns applies and the next turn's idle extracts.
func TestProjectExtractionFrequencyNeedsTrust(t *testing.T) {
	e2e.SkipShort(t)
	e := e2e.NewExtractEnv(t)
	e.Config["plugin"] = []any{e2e.PluginTuple(ocmemPluginPath(t, e), map[string]any{"minTurns": 1, "extractIdleSeconds": 1})}
	e.WriteConfig()
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	srv := e.Serve()

	id := e.Conversation(srv, e2e.PnpmMarker, "we moved to pnpm 9 last week")
	if l := e2e.WithMsg(e.LogRecords(id), "extraction skipped"); len(l) == 0 || !strings.Contains(l[len(l)-1].Str("reason"), "1 of minTurns 4 ") {
		t.Errorf("untrusted project's first turn: skips %v, want one for 1 of minTurns 4", l)
	}
	// Well past the repository's extractIdleSeconds, far short of the
	// default 600.
	time.Sleep(4 * time.Second)
	if n := len(e.Extractions()); n != 0 {
		t.Fatalf("untrusted project: %d extraction requests, want none", n)
	}

	e.RunOcmem("trust")
	e.Turn(srv, id, "and the lockfile is pnpm-lock.yaml "+e2e.PnpmMarker)
	if n := len(e.Extractions()); n != 1 {
		t.Errorf("trusted project: %d extraction requests after its turn, want 1 (the project's minTurns 1)", n)
	}
}
