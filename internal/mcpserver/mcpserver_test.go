package mcpserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/live"
	"github.com/ocmem/ocmem/internal/mcpserver"
	"github.com/ocmem/ocmem/internal/toolspec"
)

// roots is a test's pair of memory roots, nested so that "../../x" from the
// project root lands on a file the test owns.
type roots struct {
	base, global, project string
}

func newRoots(t *testing.T) roots {
	t.Helper()
	base := t.TempDir()
	r := roots{base: base, global: filepath.Join(base, "config", "memory"), project: filepath.Join(base, "repo", "sub", ".memory")}
	return r
}

func (r roots) engine() *engine.Engine {
	return engine.New(engine.Config{GlobalDir: r.global, ProjectDir: r.project})
}

// seed writes memories as a person would (the CLI). A corpus of one memory
// ranks nothing: every term is in every memory, so idf is zero.
func seed(t *testing.T, e *engine.Engine, reqs ...engine.RememberRequest) {
	t.Helper()
	reqs = append(reqs,
		engine.RememberRequest{Category: "preferences", Kind: "preference", Summary: "Answer in British English", Body: "The user writes colour, not color."},
		engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "The CLI is built with the standard flag package", Body: "No cobra."},
	)
	for _, req := range reqs {
		if req.Source == 0 {
			req.Source = engine.FromPerson
		}
		if _, err := e.Remember(req); err != nil {
			t.Fatal(err)
		}
	}
}

// connect runs a server over the engine and returns a client session on
// the SDK's in-memory transport.
func connect(t *testing.T, e *engine.Engine) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := mcpserver.New(mcpserver.Config{Engine: e, Version: "test"})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns its text and whether it is a tool error. A
// protocol failure fails the test: refusals must be tool results.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v; want a tool result", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", name, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	txt, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %s", name, args, txt)
	}
	return txt
}

// fakeGitHubToken returns "ghp_" and 36 random letters and digits, built at
// run time so that no token-shaped literal sits in the repository.
func fakeGitHubToken(t *testing.T) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("ghp_")
	for range 36 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, alnum[n.Int64()])
	}
	return string(b)
}

// wireSchema is the part of an input schema the tests check, as a client
// receives it.
type wireSchema struct {
	Type       string   `json:"type"`
	Required   []string `json:"required"`
	Properties map[string]struct {
		Type        any    `json:"type"`
		Enum        []any  `json:"enum"`
		Description string `json:"description"`
		Items       *struct {
			Type any `json:"type"`
		} `json:"items"`
	} `json:"properties"`
}

func TestToolsListed(t *testing.T) {
	cs := connect(t, newRoots(t).engine())
	ir := cs.InitializeResult()
	if ir.ServerInfo.Name != "ocmem" {
		t.Errorf("server name %q, want ocmem", ir.ServerInfo.Name)
	}
	for _, want := range []string{"recall", "remember", "Not worth remembering", "secrets", "rule-proposal"} {
		if !strings.Contains(ir.Instructions, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	var names []string
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"forget", "inspect", "recall", "remember"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	type hints struct{ readOnly, destructive bool }
	for name, want := range map[string]hints{
		"recall": {readOnly: true}, "inspect": {readOnly: true},
		"remember": {destructive: false}, "forget": {destructive: true},
	} {
		a := tools[name].Annotations
		if a == nil {
			t.Errorf("%s: no annotations", name)
			continue
		}
		if a.ReadOnlyHint != want.readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", name, a.ReadOnlyHint, want.readOnly)
		}
		// The spec's default for destructiveHint is true: it must be said.
		if !want.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != want.destructive) {
			t.Errorf("%s: destructiveHint %v, want %v", name, a.DestructiveHint, want.destructive)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint %v, want false (a closed memory store)", name, a.OpenWorldHint)
		}
		if tools[name].Description == "" {
			t.Errorf("%s: no description", name)
		}
	}

	schema := func(name string) wireSchema {
		b, err := json.Marshal(tools[name].InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s wireSchema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" {
			t.Errorf("%s: schema type %q, want object", name, s.Type)
		}
		return s
	}
	props := func(s wireSchema) []string {
		var out []string
		for k := range s.Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		tool            string
		props, required []string
	}{
		{"recall", []string{"limit", "query"}, []string{"query"}},
		{"remember", []string{"anchors", "body", "category", "enforce", "highlight", "kind", "load_when", "pinned", "scope", "summary", "supersedes"}, []string{"body", "category", "kind", "summary"}},
		{"forget", []string{"id", "scope"}, []string{"id"}},
		{"inspect", nil, nil},
	} {
		s := schema(c.tool)
		if got := props(s); !slices.Equal(got, c.props) {
			t.Errorf("%s: properties %v, want %v", c.tool, got, c.props)
		}
		got := slices.Clone(s.Required)
		slices.Sort(got)
		if !slices.Equal(got, c.required) {
			t.Errorf("%s: required %v, want %v", c.tool, got, c.required)
		}
		for p, ps := range s.Properties {
			if ps.Description == "" {
				t.Errorf("%s.%s: no description", c.tool, p)
			}
		}
	}
	rem := schema("remember")
	enum := func(vs []any) string {
		b, _ := json.Marshal(vs)
		return string(b)
	}
	if got := enum(rem.Properties["kind"].Enum); got != `["rule","preference","decision","pitfall","fact"]` {
		t.Errorf("remember.kind enum %s", got)
	}
	if got := enum(rem.Properties["scope"].Enum); got != `["project","global"]` {
		t.Errorf("remember.scope enum %s", got)
	}
	if got := enum(schema("forget").Properties["scope"].Enum); got != `["project","global"]` {
		t.Errorf("forget.scope enum %s", got)
	}
	if lw := rem.Properties["load_when"]; lw.Type != "array" || lw.Items == nil || lw.Items.Type != "string" {
		t.Errorf("remember.load_when: type %v items %+v, want an array of strings", lw.Type, lw.Items)
	}
}

func TestRememberWritesFile(t *testing.T) {
	r := newRoots(t)
	cs := connect(t, r.engine())
	txt := mustCall(t, cs, "remember", map[string]any{
		"category": "pitfalls", "kind": "pitfall",
		"summary":   "SQLite FTS5 cannot find CJK words",
		"highlight": "unicode61 indexes 部署脚本用 as one token",
		"body":      "Root cause: the unicode61 tokenizer keeps CJK runs whole. Use ocmem's bigram tokenizer.",
		"load_when": []string{"SQLite", "分词"},
	})
	path := filepath.Join(r.project, "pitfalls", "sqlite-fts5-cannot-find-cjk.md")
	if !strings.Contains(txt, "project:pitfalls/sqlite-fts5-cannot-find-cjk (pitfall)") || !strings.Contains(txt, path) {
		t.Errorf("reply %q does not name the memory and its file %s", txt, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id: pitfalls/sqlite-fts5-cannot-find-cjk\n", "kind: pitfall\n", "  - 分词\n", "Root cause: the unicode61"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q:\n%s", path, want, data)
		}
	}
	idx, err := os.ReadFile(filepath.Join(r.project, "pitfalls", "index.md"))
	if err != nil || !strings.Contains(string(idx), "sqlite-fts5-cannot-find-cjk") {
		t.Errorf("pitfalls/index.md was not compiled with the memory (%v):\n%s", err, idx)
	}

	// scope global goes to the global root.
	mustCall(t, cs, "remember", map[string]any{
		"category": "preferences", "kind": "preference", "scope": "global",
		"summary": "Answer in British English", "body": "The user writes colour, not color.",
	})
	if _, err := os.Stat(filepath.Join(r.global, "preferences", "answer-british-english.md")); err != nil {
		t.Errorf("scope global: %v", err)
	}
}

func TestRuleFromModelBecomesProposal(t *testing.T) {
	r := newRoots(t)
	cs := connect(t, r.engine())
	txt := mustCall(t, cs, "remember", map[string]any{
		"category": "rules", "kind": "rule",
		"summary": "Never push to main without review", "body": "Open a pull request.",
	})
	if !strings.Contains(txt, "(rule-proposal)") || !strings.Contains(txt, "not in force") {
		t.Errorf("reply does not say the rule became a proposal: %q", txt)
	}
	// The same sentence as the OpenCode tool's: the command that accepts it.
	if want := "`ocmem accept rules/never-push-main-without-review`"; !strings.Contains(txt, want) {
		t.Errorf("reply does not name %s: %q", want, txt)
	}
	data, err := os.ReadFile(filepath.Join(r.project, "rules", "never-push-main-without-review.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "kind: rule-proposal\n") {
		t.Errorf("stored as:\n%s\nwant kind: rule-proposal", data)
	}
	// A proposal is not a hard rule: the context prompt must not show it as one.
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "context"})
	if err != nil {
		t.Fatal(err)
	}
	ctxText := res.Messages[0].Content.(*mcp.TextContent).Text
	if strings.Contains(ctxText, "# Hard rules") {
		t.Errorf("a rule proposal shows up as a hard rule:\n%s", ctxText)
	}
}

func TestRecallReturnsMemoryWithReasons(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	seed(t, e, engine.RememberRequest{
		Category: "decisions", Kind: "decision",
		Summary:  "Deploys go through the staging cluster first",
		LoadWhen: []string{"deploy", "部署"},
		Body:     "Run make stage, wait for the smoke tests, then make prod.",
	})
	cs := connect(t, e)
	txt := mustCall(t, cs, "recall", map[string]any{"query": "how do I deploy"})
	for _, want := range []string{
		"project:decisions/deploys-go-through-staging-cluster (decision)",
		"Run make stage, wait for the smoke tests, then make prod.",
		`why: matched "Deploys" in `, // as the memory writes it
		"scope ×", "decay ×",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("recall text lacks %q:\n%s", want, txt)
		}
	}
	// CJK query through the same tool.
	if txt := mustCall(t, cs, "recall", map[string]any{"query": "部署前要做什么", "limit": 1}); !strings.Contains(txt, "deploys-go-through-staging-cluster") {
		t.Errorf("CJK recall missed the memory:\n%s", txt)
	}
	// A memory written after the server started (by hand, by another
	// process) is found: the server does not serve a stale snapshot.
	other := r.engine()
	if _, err := other.Remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "The staging cluster is called kestrel", Body: "kestrel"}); err != nil {
		t.Fatal(err)
	}
	if txt := mustCall(t, cs, "recall", map[string]any{"query": "kestrel"}); !strings.Contains(txt, "facts/staging-cluster-called-kestrel") {
		t.Errorf("a memory written after the server started is not recalled:\n%s", txt)
	}
	if txt := mustCall(t, cs, "recall", map[string]any{"query": "quantum chromodynamics"}); !strings.Contains(txt, "No memory matches.") {
		t.Errorf("unrelated query: %q", txt)
	}
	if txt, isErr := call(t, cs, "recall", map[string]any{"query": "  "}); !isErr || !strings.Contains(txt, "query is empty") {
		t.Errorf("empty query: isError %v, %q", isErr, txt)
	}
}

func TestForgetOutsideRootRefused(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	w, err := e.Remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "Keep me", Body: "still here"})
	if err != nil {
		t.Fatal(err)
	}
	// ../../x from the project root (repo/sub/.memory) is repo/x.md.
	victim := filepath.Join(r.base, "repo", "x.md")
	if err := os.WriteFile(victim, []byte("not a memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e)
	for _, args := range []map[string]any{
		{"id": "../../x"},
		{"id": "../../x", "scope": "project"},
		{"id": "facts/../../../x"},
		{"id": victim},
	} {
		txt, isErr := call(t, cs, "forget", args)
		if !isErr {
			t.Errorf("forget %v succeeded: %q", args, txt)
		}
		if !strings.HasPrefix(txt, "forget refused: ") || !strings.Contains(txt, "nothing was deleted") {
			t.Errorf("forget %v: unclear refusal %q", args, txt)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the file outside the root is gone: %v", err)
	}
	if _, err := os.Stat(w.Path); err != nil {
		t.Errorf("a memory inside the root is gone: %v", err)
	}
	// A real id is forgotten, and the reply says where from.
	txt := mustCall(t, cs, "forget", map[string]any{"id": w.ID})
	if !strings.Contains(txt, "Forgot project:"+w.ID) {
		t.Errorf("forget reply %q", txt)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("forgotten memory still on disk: %v", err)
	}
	if txt, isErr := call(t, cs, "forget", map[string]any{"id": w.ID}); !isErr || !strings.Contains(txt, "not found") {
		t.Errorf("forgetting twice: isError %v, %q", isErr, txt)
	}
}

func TestSecretRefused(t *testing.T) {
	r := newRoots(t)
	cs := connect(t, r.engine())
	token := fakeGitHubToken(t)
	for _, field := range []string{"body", "summary", "highlight"} {
		args := map[string]any{
			"category": "facts", "kind": "fact",
			"summary": "CI token for the release job", "body": "Used by release.yml.",
		}
		args[field] = "the token is " + token
		txt, isErr := call(t, cs, "remember", args)
		if !isErr {
			t.Fatalf("secret in %s accepted: %q", field, txt)
		}
		if !strings.Contains(txt, "secret") || !strings.Contains(txt, "nothing was written") {
			t.Errorf("secret in %s: unclear refusal %q", field, txt)
		}
		if strings.Contains(txt, token) {
			t.Errorf("the refusal repeats the secret: %q", txt)
		}
	}
	// Nothing was written: the roots were never even created.
	for _, dir := range []string{r.project, r.global} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s exists after refused writes (%v): %v", dir, err, memoryFiles(t, dir))
		}
	}
}

func TestRememberBadRequests(t *testing.T) {
	r := newRoots(t)
	cs := connect(t, r.engine())
	base := map[string]any{"category": "facts", "kind": "fact", "summary": "s", "body": "b"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"unknown kind":       {with("kind", "opinion"), "kind"},
		"no summary":         {with("summary", nil), "summary"},
		"category with path": {with("category", "../etc"), "category"},
		"bad scope":          {with("scope", "team"), "scope"},
		"supersedes outside": {with("supersedes", "../../x"), "refused"},
		// Arguments are exactly the contract's: a root named by the model
		// is refused, not ignored.
		"unknown worktree": {with("worktree", "/tmp/other"), "worktree"},
	} {
		txt, isErr := call(t, cs, "remember", c.args)
		if !isErr || !strings.Contains(txt, c.want) {
			t.Errorf("%s: isError %v, text %q; want a tool error mentioning %q", name, isErr, txt, c.want)
		}
	}
	if files := memoryFiles(t, r.project); len(files) > 0 {
		t.Errorf("refused writes wrote %v", files)
	}
}

// memoryFiles lists the .md files under a root.
func memoryFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return filepath.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInspect(t *testing.T) {
	r := newRoots(t)
	cs := connect(t, r.engine())
	if txt := mustCall(t, cs, "inspect", nil); !strings.Contains(txt, "0 memories") {
		t.Errorf("empty inspect:\n%s", txt)
	}
	mustCall(t, cs, "remember", map[string]any{
		"category": "decisions", "kind": "decision", "summary": "Use Go 1.26", "body": "For range-over-func iterators.",
	})
	// A file that does not parse is reported, not fixed or deleted.
	bad := filepath.Join(r.project, "facts", "broken.md")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("---\nid: [unclosed\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := mustCall(t, cs, "inspect", nil)
	for _, want := range []string{"project root: " + r.project, "1 memories", "project:decisions/use-go-1-26 (decision) — Use Go 1.26", "facts/broken.md", "error"} {
		if !strings.Contains(txt, want) {
			t.Errorf("inspect lacks %q:\n%s", want, txt)
		}
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("inspect touched the unparsable file: %v", err)
	}
}

func TestContextPromptAndResource(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	seed(t, e,
		engine.RememberRequest{Category: "rules", Kind: "rule", Summary: "Never commit generated files", Body: "They are rebuilt in CI."},
		engine.RememberRequest{Category: "pitfalls", Kind: "pitfall", Summary: "The e2e tests need npm", LoadWhen: []string{"e2e", "npm"}, Body: "They install opencode-ai with npm on first run."},
	)
	cs := connect(t, e)
	ctx := context.Background()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "context" ||
		len(prompts.Prompts[0].Arguments) != 1 || prompts.Prompts[0].Arguments[0].Name != "message" || prompts.Prompts[0].Arguments[0].Required {
		t.Fatalf("prompts: %+v", prompts.Prompts)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context", Arguments: map[string]string{"message": "why do the e2e tests fail without npm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompt messages: %+v", res.Messages)
	}
	withBodies := res.Messages[0].Content.(*mcp.TextContent).Text
	inj, err := e.Inject("why do the e2e tests fail without npm", engine.InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tier := range []string{inj.Rules, inj.Outline, inj.Bodies} {
		if tier == "" || !strings.Contains(withBodies, strings.TrimSpace(tier)) {
			t.Errorf("prompt lacks a tier of the injection:\n--- tier\n%s\n--- prompt\n%s", tier, withBodies)
		}
	}
	if !strings.Contains(withBodies, "They install opencode-ai with npm") || !strings.Contains(withBodies, "Never commit generated files") {
		t.Errorf("prompt lacks the rule or the relevant body:\n%s", withBodies)
	}

	// OpenCode gets the prompt with the placeholder "$1" and substitutes the
	// user's message afterwards: the placeholder must survive, in a text that
	// asks for a recall, and must not be searched for.
	res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context", Arguments: map[string]string{"message": "$1"}})
	if err != nil {
		t.Fatal(err)
	}
	templ := res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(templ, "The message:\n\n$1\n\nBefore you answer it, call the recall tool") ||
		!strings.Contains(templ, strings.TrimSpace(inj.Outline)) || strings.Contains(templ, "<memory id=") {
		t.Errorf("prompt for a placeholder message:\n%s", templ)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ContextURI})
	if err != nil {
		t.Fatal(err)
	}
	stable := rr.Contents[0].Text
	if !strings.Contains(stable, "Never commit generated files") || !strings.Contains(stable, "pitfalls/e2e-tests-need-npm") {
		t.Errorf("resource lacks the rules or the outline:\n%s", stable)
	}
	if strings.Contains(stable, "They install opencode-ai with npm") {
		t.Errorf("resource holds a body; it should hold the stable tiers only:\n%s", stable)
	}
}

// TestRecallLimitClamped checks that a limit above the maximum the schema
// states gets the maximum, not the default.
func TestRecallLimitClamped(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	var reqs []engine.RememberRequest
	for i := range toolspec.MaxRecallLimit + 5 {
		reqs = append(reqs, engine.RememberRequest{Category: "facts", Kind: "fact",
			Summary: fmt.Sprintf("Deploy step %d runs on the staging cluster", i), Body: fmt.Sprintf("Step %d of the deploy.", i)})
	}
	// Memories without the query's words keep its terms informative.
	for i := range 2 * toolspec.MaxRecallLimit {
		reqs = append(reqs, engine.RememberRequest{Category: "facts", Kind: "fact",
			Summary: fmt.Sprintf("Service number %d logs to syslog", i), Body: "Nothing else."})
	}
	seed(t, e, reqs...)
	cs := connect(t, e)
	for _, tc := range []struct{ limit, want int }{
		{0, toolspec.DefaultRecallLimit},
		{3, 3},
		{50, toolspec.MaxRecallLimit},
	} {
		args := map[string]any{"query": "staging cluster"}
		if tc.limit != 0 {
			args["limit"] = tc.limit
		}
		txt := mustCall(t, cs, "recall", args)
		if got := strings.Count(txt, "Deploy step "); got != tc.want {
			t.Errorf("limit %d: %d memories, want %d", tc.limit, got, tc.want)
		}
	}
}

// A negative recall limit is a tool error the model can read, as the CLI's
// --limit refuses it; a limit of the wrong type is one too.
func TestRecallBadLimitRefused(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	seed(t, e)
	cs := connect(t, e)
	for _, limit := range []any{-5, -1, "7", 2.5} {
		txt, isErr := call(t, cs, "recall", map[string]any{"query": "British English", "limit": limit})
		if !isErr || !strings.Contains(txt, "limit") {
			t.Errorf("limit %v: isError %v, text %q; want a tool error naming the limit", limit, isErr, txt)
		}
	}
}

// TestHandEditSeenThroughWatcher: with the roots watched (as `ocmem mcp`
// runs) or polled (no live.Engines given), a memory file edited by hand is
// recalled by its new words.
func TestHandEditSeenThroughWatcher(t *testing.T) {
	for _, mode := range []string{"watching", "polling"} {
		t.Run(mode, func(t *testing.T) {
			r := newRoots(t)
			e := r.engine()
			seed(t, e)
			cfg := mcpserver.Config{Engine: e, Version: "test"}
			if mode == "watching" {
				cfg.Live = live.New(live.Config{})
				cfg.Live.Watch()
				defer cfg.Live.Close()
			}
			ctx := context.Background()
			srv := mcpserver.New(cfg)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()

			mustCall(t, cs, "recall", map[string]any{"query": "colour"})
			file := filepath.Join(r.project, "facts", "zeppelin.md")
			if err := os.WriteFile(file, []byte("---\nid: facts/zeppelin\nkind: fact\nsummary: The zeppelin hangar is in building nine\nload_when: [zeppelin]\n---\nBody.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if txt := mustCall(t, cs, "recall", map[string]any{"query": "zeppelin hangar"}); strings.Contains(txt, "facts/zeppelin") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the hand-written memory was never recalled")
				}
			}
		})
	}
}

// The server's log holds no secret a person pasted: a recall query and a
// context prompt's message are logged masked, in every form a write's
// check reads (here a token as Markdown escapes it).
func TestLogMasksQueriesAndMessages(t *testing.T) {
	r := newRoots(t)
	e := r.engine()
	var log bytes.Buffer
	srv := mcpserver.New(mcpserver.Config{Engine: e, Version: "test", Log: slog.New(slog.NewTextHandler(&log, nil))})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := fakeGitHubToken(t)
	escaped := "ghp\\_" + tok[4:]
	mustCall(t, cs, "recall", map[string]any{"query": "why does deploy with " + tok + " fail"})
	mustCall(t, cs, "recall", map[string]any{"query": "deploy with " + escaped})
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context", Arguments: map[string]string{"message": "use " + tok + " and " + escaped}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ss.Wait()
	got := log.String()
	if !strings.Contains(got, "mcp recall") || !strings.Contains(got, "mcp context prompt") {
		t.Fatalf("log lacks the recall or the prompt:\n%s", got)
	}
	if strings.Contains(got, tok[4:]) || strings.Contains(got, tok[8:20]) {
		t.Errorf("log holds the token:\n%s", got)
	}
}
