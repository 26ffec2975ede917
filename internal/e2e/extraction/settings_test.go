package extraction

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
