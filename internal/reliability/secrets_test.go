package reliability_test

import (
	"context"
	"github.com/ocmem/ocmem/internal/testenv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/secrets/secrettest"
	"github.com/ocmem/ocmem/internal/store"
)

// Every way a memory gets written must refuse a secret and write nothing:
// the CLI (a person), serve's remember (the OpenCode plugin's
// memory_remember tool), the MCP server's remember tool, and automatic
// extraction (engine.Remember from extraction, as internal/extract calls
// it). And every one must accept what only looks like a secret, and the
// development corpus. The secret values are generated at test time
// (secrettest); none is committed.

// note is one memory to write.
type note struct {
	name                     string
	category, kind           string
	summary, highlight, body string
	loadWhen                 []string
}

// writePath writes a note one way and says whether it was written, or the
// refusal's text.
type writePath struct {
	name string
	open func(t *testing.T, w *world) (write func(n note) (ok bool, msg string), close func())
}

var writePaths = []writePath{
	{"cli", func(t *testing.T, w *world) (func(note) (bool, string), func()) {
		return func(n note) (bool, string) {
			args := []string{"remember", "--category", n.category, "--kind", n.kind, "--summary", n.summary, "--highlight", n.highlight, "--body", n.body}
			for _, l := range n.loadWhen {
				args = append(args, "--load-when", l)
			}
			r := w.ocmem(t, "", args...)
			return r.code == 0, r.stderr
		}, func() {}
	}},
	{"serve", func(t *testing.T, w *world) (func(note) (bool, string), func()) {
		sp := startServe(t, w)
		return func(n note) (bool, string) {
			r := sp.call(t, "remember", map[string]any{"sessionID": "ses_secrets", "category": n.category, "kind": n.kind,
				"summary": n.summary, "highlight": n.highlight, "body": n.body, "load_when": n.loadWhen})
			if r.Error != nil {
				return false, r.Error.Message
			}
			return true, r.Result.Text
		}, func() { sp.close(t) }
	}},
	{"mcp", func(t *testing.T, w *world) (func(note) (bool, string), func()) {
		cmd := exec.Command(ocmemBin(t), "mcp")
		cmd.Env, cmd.Dir = w.env, filepath.Dir(w.project)
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "reliability", Version: "0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return func(n note) (bool, string) {
			ctx, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			args := map[string]any{"category": n.category, "kind": n.kind, "summary": n.summary, "highlight": n.highlight, "body": n.body}
			if n.loadWhen != nil {
				args["load_when"] = n.loadWhen // the schema wants an array or nothing
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: args})
			if err != nil {
				t.Fatalf("mcp remember: a protocol failure, not a tool result: %v", err)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			return !res.IsError, text.String()
		}, func() { cs.Close() }
	}},
	{"extraction", func(t *testing.T, w *world) (func(note) (bool, string), func()) {
		e := engine.New(engine.Config{GlobalDir: w.global, ProjectDir: w.project})
		return func(n note) (bool, string) {
			_, err := e.Remember(engine.RememberRequest{Category: n.category, Kind: memory.Kind(n.kind), Summary: n.summary,
				Highlight: n.highlight, Body: n.body, LoadWhen: n.loadWhen, Source: engine.FromExtraction})
			if err != nil {
				return false, err.Error()
			}
			return true, ""
		}, func() {}
	}},
}

// fields a secret is put in, in turn (all of them with OCMEM_LONG=1).
var secretFields = []string{"body", "summary", "highlight", "load_when"}

func secretNote(c secrettest.Case, field string) note {
	n := note{name: c.Name + " in " + field, category: "facts", kind: "fact", summary: "a note about deployment", body: "Some context."}
	text := c.Text(secrettest.NewGen(c.Name))
	switch field {
	case "body":
		n.body = text
	case "summary":
		n.summary = text
	case "highlight":
		n.highlight = text
	case "load_when":
		n.loadWhen = []string{"deploy", text}
	}
	return n
}

// refusals opens a write path over a new world that holds one memory
// already, so the roots and their compiled files exist and "nothing
// written" means nothing changed. It returns the path's write function and
// a check, to call last, that the writes changed neither root.
func refusals(t *testing.T, p writePath) (write func(n note) (ok bool, msg string), unchanged func()) {
	t.Helper()
	w := newWorld(t)
	if r := w.ocmem(t, "", "remember", "--category", "facts", "--kind", "fact", "--summary", "an existing memory", "--body", "Seed."); r.code != 0 {
		t.Fatal(r.stderr)
	}
	before := hashTree(t, w.dir+"/repo")
	beforeGlobal := hashTree(t, w.global)
	write, closeFn := p.open(t, w)
	t.Cleanup(closeFn)
	return write, func() {
		t.Helper()
		if d := treeDiff(before, hashTree(t, w.dir+"/repo")); len(d) > 0 {
			t.Errorf("refused writes changed the project root:\n%s", strings.Join(d, "\n"))
		}
		if d := treeDiff(beforeGlobal, hashTree(t, w.global)); len(d) > 0 {
			t.Errorf("refused writes changed the global root:\n%s", strings.Join(d, "\n"))
		}
	}
}

func TestSecretsRefusedOnEveryWritePath(t *testing.T) {
	if n := len(secrettest.Secrets); n < 40 {
		t.Fatalf("only %d secret formats", n)
	}
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			write, unchanged := refusals(t, p)
			tried := 0
			for i, c := range secrettest.Secrets {
				for j, field := range secretFields {
					if !long() && j != 0 && j != 1+i%(len(secretFields)-1) {
						continue // short: the body, and one other field in turn
					}
					n := secretNote(c, field)
					ok, msg := write(n)
					tried++
					switch {
					case ok:
						t.Errorf("%s: written (%s rule: %s)", n.name, p.name, c.Rule)
					case !strings.Contains(msg, "refusing to write: possible secret"):
						t.Errorf("%s: refused, but not for the secret: %s", n.name, msg)
					}
				}
			}
			unchanged()
			t.Logf("%s: %d secret formats, %d refused writes, nothing written", p.name, len(secrettest.Secrets), tried)
		})
	}
}

// devCorpus reads the development set's memories (125), if it is here.
func devCorpus(t *testing.T) []note {
	t.Helper()
	const dir = "../engine/testdata/eval/dev" // a copy of the benchmark's dev set
	var notes []note
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || d.Name() == store.IndexFile || d.Name() == store.RootFile || d.Name() == "README.md" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m, err := memory.Parse(b)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		notes = append(notes, note{name: m.ID, category: m.Category(), kind: string(m.Kind), summary: m.Summary,
			highlight: m.Highlight, body: m.Body, loadWhen: m.LoadWhen})
		return nil
	})
	if os.IsNotExist(err) {
		testenv.Missing(t, "no development corpus at %s", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

func TestLookAlikesAndDevCorpusAccepted(t *testing.T) {
	var notes []note
	for _, c := range secrettest.LookAlikes {
		notes = append(notes, note{name: "look-alike " + c.Name, category: "facts", kind: "fact",
			summary: "look-alike " + c.Name, body: c.Text(secrettest.NewGen(c.Name))})
	}
	dev := devCorpus(t)
	if len(dev) < 125 {
		t.Fatalf("the development corpus has %d memories, want 125", len(dev))
	}
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			all := append(append([]note{}, notes...), dev...)
			if p.name == "cli" && !long() {
				// A process per write: the short run takes every look-alike
				// and every fifth development memory; the long run all.
				all = notes
				for i := 0; i < len(dev); i += 5 {
					all = append(all, dev[i])
				}
			}
			w := newWorld(t)
			write, closeFn := p.open(t, w)
			defer closeFn()
			start := time.Now()
			for _, n := range all {
				if ok, msg := write(n); !ok {
					t.Errorf("%s: refused: %s", n.name, msg)
				}
			}
			t.Logf("%s: %d look-alikes and development memories accepted in %v", p.name, len(all), time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestRealPrivateKeysRefusedOnEveryWritePath writes keys made by
// ssh-keygen and openssl, committed ones and fresh ones, through every
// write path, in the body and in the summary: each is refused and nothing
// is written.
func TestRealPrivateKeysRefusedOnEveryWritePath(t *testing.T) {
	keys := secrettest.RealKeys(t)
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			write, unchanged := refusals(t, p)
			for i, k := range keys {
				n := note{name: k.Name + " in the body", category: "facts", kind: "fact", summary: "deploy key", body: k.Text}
				if i%2 == 1 {
					n = note{name: k.Name + " in the summary", category: "facts", kind: "fact", summary: "deploy key " + k.Text}
				}
				ok, msg := write(n)
				switch {
				case ok:
					t.Errorf("%s: written", n.name)
				case !strings.Contains(msg, "refusing to write: possible secret found: private key"):
					t.Errorf("%s: refused, but not for the key: %s", n.name, msg)
				}
			}
			unchanged()
		})
	}
}
