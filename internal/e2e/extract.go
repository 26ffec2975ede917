package e2e

// What the tests of automatic extraction share: an Env whose fake model
// answers extraction by scenario, and readers of ocmem's log.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// ExtractWait bounds the wait for an extraction to finish after the idle
// that starts it (a run is bounded at 60 s; it takes 1–3 s here).
const ExtractWait = 90 * time.Second

// ExtractionMarker is in the system prompt of every extraction request.
const ExtractionMarker = "ocmem's memory extractor"

// ExtractEnv is an Env with ocmem installed, its log in a known place, and
// the three models of SPEC §6 beside the session's own model: expensive;
// cheap; cheaper but with a 4k window. Extraction must pick "cheap".
type ExtractEnv struct {
	*Env
	Log string // ocmem's log (OCMEM_LOG)

	mu      sync.Mutex
	replies map[string]fakellm.Reply // extraction reply by scenario marker in the turns
}

// NewExtractEnv is an ExtractEnv on OpenCode 1.x.
func NewExtractEnv(t testing.TB) *ExtractEnv {
	t.Helper()
	return NewExtractEnvWith(t, EnvOptions{})
}

// isExtraction reports whether a model request is extraction's. On 1.x the
// instructions are its system prompt; OpenCode 2's generate.text sends no
// system message, so there they open the one user message of a request
// that offers no tools.
func isExtraction(r fakellm.Request) bool {
	return strings.Contains(r.SystemText(), ExtractionMarker) ||
		len(r.Body.Tools) == 0 && strings.Contains(r.LastUserText(), ExtractionMarker)
}

// NewExtractEnvWith is NewExtractEnv with options for the Env.
func NewExtractEnvWith(t testing.TB, opts EnvOptions) *ExtractEnv {
	t.Helper()
	e := &ExtractEnv{Env: WithOcmem(t, NewEnvWith(t, opts)), replies: map[string]fakellm.Reply{}}
	e.Log = filepath.Join(e.Home, "ocmem.log")
	e.Vars = append(e.Vars, "OCMEM_LOG="+e.Log)
	models := e.Config["provider"].(map[string]any)[ProviderID].(map[string]any)["models"].(map[string]any)
	model := func(input, output float64, context int) map[string]any {
		return map[string]any{"name": "m", "limit": map[string]any{"context": context, "output": 1024},
			"cost": map[string]any{"input": input, "output": output}}
	}
	models["expensive"] = model(15, 75, 200000)
	models["cheap"] = model(0.25, 1.25, 16000)
	models["tiny"] = model(0.01, 0.02, 4096)
	e.WriteConfig()
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		if !isExtraction(r) {
			return fakellm.Text("ok") // the agent answering the user
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		// The reply of the scenario whose marker is among the new turns.
		text := r.LastUserText()
		if i := strings.Index(text, "### New turns"); i >= 0 {
			text = text[i:]
		}
		for marker, reply := range e.replies {
			if strings.Contains(text, marker) {
				return reply
			}
		}
		return fakellm.Text(`{"memories": []}`)
	})
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(e.Log)
			t.Logf("ocmem log:\n%s", Tail(string(b), 40000))
		}
	})
	return e
}

// Reply makes r extraction's answer for the turns that carry marker.
func (e *ExtractEnv) Reply(marker string, r fakellm.Reply) {
	e.mu.Lock()
	e.replies[marker] = r
	e.mu.Unlock()
}

// MemoriesReply is the model's answer holding these candidates.
func MemoriesReply(cands ...map[string]any) fakellm.Reply {
	b, err := json.Marshal(map[string]any{"memories": cands})
	if err != nil {
		panic(err)
	}
	return fakellm.Text(string(b))
}

// Extractions returns the extraction requests the fake model received.
func (e *ExtractEnv) Extractions() []fakellm.Request {
	var out []fakellm.Request
	for _, r := range e.Fake.Requests() {
		if isExtraction(r) {
			out = append(out, r)
		}
	}
	return out
}

// LogRecord is one line of ocmem's log.
type LogRecord map[string]any

// Str is the record's value for k, if it is a string.
func (r LogRecord) Str(k string) string { s, _ := r[k].(string); return s }

// LogRecords returns ocmem's log records about a session.
func (e *ExtractEnv) LogRecords(session string) []LogRecord {
	f, err := os.Open(e.Log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []LogRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r LogRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Str("session") == session {
			out = append(out, r)
		}
	}
	return out
}

// AllRecords returns every record of ocmem's log.
func (e *ExtractEnv) AllRecords() []LogRecord {
	b, _ := os.ReadFile(e.Log)
	var out []LogRecord
	for _, line := range strings.Split(string(b), "\n") {
		var r LogRecord
		if json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// WithMsg returns the records whose message starts with prefix.
func WithMsg(recs []LogRecord, prefix string) []LogRecord {
	var out []LogRecord
	for _, r := range recs {
		if strings.HasPrefix(r.Str("msg"), prefix) {
			out = append(out, r)
		}
	}
	return out
}

// runEnds are the log messages that end an extraction run of a session.
var runEnds = []string{"extraction done", "extraction failed", "extraction stopped", "extraction reply unusable", "extraction skipped"}

// Ends counts the records that end an extraction run.
func Ends(recs []LogRecord) int {
	n := 0
	for _, r := range recs {
		for _, m := range runEnds {
			if strings.HasPrefix(r.Str("msg"), m) {
				n++
				break
			}
		}
	}
	return n
}

// Turn sends one user message and waits until ocmem has handled the idle
// that follows it (a skip, a failure, or a finished extraction).
func (e *ExtractEnv) Turn(srv *OpenCodeServe, session, text string) {
	e.T.Helper()
	before := Ends(e.LogRecords(session))
	MustPrompt(e.T, srv, context.Background(), session, text)
	deadline := time.Now().Add(ExtractWait)
	for Ends(e.LogRecords(session)) <= before {
		if time.Now().After(deadline) {
			e.T.Fatalf("no extraction outcome in the ocmem log %v after the turn %q", ExtractWait, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Conversation opens a session and runs the turns, each carrying marker.
func (e *ExtractEnv) Conversation(srv *OpenCodeServe, marker string, turns ...string) string {
	e.T.Helper()
	id := MustSession(e.T, srv, context.Background())
	for _, t := range turns {
		e.Turn(srv, id, t+" "+marker)
	}
	return id
}

// FourTurns are a conversation that reaches the default minTurns.
var FourTurns = []string{
	"the deploy failed again",
	"部署失败了, 表结构不匹配",
	"we moved to pnpm 9 last week, and integration tests need Docker running now",
	"thanks, that fixed it",
}

// MemoryFiles lists the memory files under the project's .memory/.
func (e *ExtractEnv) MemoryFiles() []string {
	var out []string
	filepath.WalkDir(filepath.Join(e.Project, ".memory"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && filepath.Base(p) != "index.md" && filepath.Base(p) != "ROOT.md" {
			rel, _ := filepath.Rel(filepath.Join(e.Project, ".memory"), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// Cursor is the project's extraction cursor for a session.
func (e *ExtractEnv) Cursor(session string) string {
	var st struct{ Cursors map[string]string }
	b, _ := os.ReadFile(filepath.Join(e.Project, ".memory", ".state.json"))
	json.Unmarshal(b, &st)
	return st.Cursors[session]
}

// GithubToken is a token of GitHub's real shape, made at test time so no
// token-shaped string is committed: "ghp_" and 36 random letters and digits.
func GithubToken(t testing.TB) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "ghp_" + string(b)
}

// SetPluginOptions gives the installed ocmem plugin options, in the global
// config `ocmem install` wrote.
func SetPluginOptions(t testing.TB, e *Env, options map[string]any) {
	t.Helper()
	path := filepath.Join(e.ConfigDir(), "opencode.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	plugins, _ := cfg["plugin"].([]any)
	n := 0
	for i, p := range plugins {
		s, ok := p.(string)
		if tuple, isTuple := p.([]any); isTuple && len(tuple) > 0 {
			s, ok = tuple[0].(string)
		}
		if ok && strings.Contains(s, "ocmem") {
			plugins[i] = []any{s, options}
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d ocmem plugin entries in %s: %s", n, path, b)
	}
	e.WriteJSON(path, cfg)
}

// PnpmMarker marks the turn whose extraction returns PnpmMemory.
const PnpmMarker = "PLUGIN-TRANSPORT-MARKER"

// PnpmMemory is the candidate most extraction tests have the model return.
var PnpmMemory = map[string]any{
	"category": "preferences", "kind": "preference",
	"summary": "Use pnpm 9 for installs in this repo",
	"body":    "The repo moved to pnpm 9; npm install breaks the lockfile.",
}

// WaitMemory waits up to d for a preferences/use-*.md memory file under
// the project's .memory and returns what it found.
func WaitMemory(t testing.TB, e *ExtractEnv, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		files, _ := filepath.Glob(filepath.Join(e.Project, ".memory", "preferences", "use-*.md"))
		if len(files) > 0 || time.Now().After(deadline) {
			return files
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// V2Session returns the id of the session ocmem last logged something
// about, waiting for it: a run through `opencode run` prints none.
func V2Session(t testing.TB, e *ExtractEnv) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		recs := e.AllRecords()
		for i := len(recs) - 1; i >= 0; i-- {
			if s := recs[i].Str("session"); strings.HasPrefix(s, "ses_") {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no session in the ocmem log")
	return ""
}

// WaitEnd waits until ocmem's log holds n outcomes of extraction runs for
// the session (see Ends).
func WaitEnd(t testing.TB, e *ExtractEnv, session string, n int) []LogRecord {
	t.Helper()
	deadline := time.Now().Add(ExtractWait)
	for {
		recs := e.LogRecords(session)
		if Ends(recs) >= n {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d extraction outcomes in the ocmem log after %v, want %d", Ends(recs), ExtractWait, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
