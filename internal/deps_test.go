// Package internal_test keeps the arrows between ocmem's packages one-way,
// as go/build's deps_test.go does for the standard library: files on disk →
// parsed memories → tokens and index → scores → engine → the edges (serve,
// MCP, the CLI, the viewer).
//
// Each package sits in a layer and may import ocmem packages of lower layers
// only. A new package must be placed here before it builds into the tree, so
// the place it takes in the design is a decision, not an accident.
package internal_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ocmem/ocmem/"

// layers lists ocmem's packages (relative to the module) from the bottom up.
// Test files are not checked: a test may reach anywhere.
var layers = [][]string{
	// The one durable file write, below everything that writes a file.
	{"internal/atomicfile"},
	// Anchors: a path into the project as a memory names it, and whether
	// that code still is as it was (git through its command, no ocmem
	// package); below memory, which parses anchors with it.
	{"internal/anchor"},
	// Leaves: the standard library and third-party modules only.
	{"internal/memory", "internal/textseg", "internal/lexicon", "internal/pathsafe", "internal/secrets",
		"internal/opencode", "internal/fakellm", "internal/testenv", "internal/toolspec", "internal/compile/compiletest", "plugin",
		"internal/guard"},
	// Parsing, storage and the index over parsed text; which bodies each
	// session was given.
	{"internal/index", "internal/store", "internal/compile", "internal/benchgen", "internal/secrets/secrettest", "internal/sessionlog"},
	// Scoring, what the user trusts, the git merge driver of a root,
	// watching the roots for changes, and the text the model is given of
	// memories (framed, escaped, masked, cut to its budget).
	{"internal/rank", "internal/trust", "internal/mergedriver", "internal/watch", "internal/prompt"},
	// The load cache's file format: a snapshot's index and columns; which
	// anchored memories are stale in the worktree in use, kept until the
	// repository or an anchored file moves; the options a person sets and
	// their defaults (above rank, whose decay half-life default they name).
	{"internal/snapfile", "internal/stale", "internal/options"},
	// The snapshot of both roots: loaded, cached and patched.
	{"internal/snapshot"},
	// The stable tiers of a snapshot (rules, outline, the outline's marks
	// of gone and outdated memories) and the project's rules against the
	// trust decisions they were rendered with; the consistency checks of a
	// root.
	{"internal/tiers", "internal/inspect"},
	// The one API the edges call.
	{"internal/engine"},
	// The engine's answers as text, for the edges to print.
	{"internal/render"},
	// The four memory tools: the contract's arguments into engine calls and
	// replies, for every edge that offers them.
	{"internal/tools"},
	// Policies and set-up built on the engine.
	{"internal/extract", "internal/install", "internal/settings"},
	{"internal/doctor"},
	// The engines of a long-lived edge kept in step with the files on
	// disk: watched, invalidated, recompiled after a hand edit.
	{"internal/live"},
	// The edges.
	{"internal/serve", "internal/mcpserver", "internal/ui"},
	{"cmd/ocmem"},
}

// exempt are folders whose non-test files are test harnesses; they may
// import anything, and nothing may import them. Tools and go:generate
// programs (package main other than cmd/ocmem) are skipped the same way.
var exempt = []string{"internal/e2e", "internal/reliability"}

func TestLayers(t *testing.T) {
	imports := packageImports(t, "..")
	if len(imports) < 10 {
		t.Fatalf("found %d packages: the test must run from internal/", len(imports))
	}
	for _, p := range layerProblems(imports, layers) {
		t.Error(p)
	}
}

// edges are the packages that face a person or a client; behind are the
// packages they reach through the engine only: the ranker's parts (its
// Recall, Mode, Decay) and how memories are stored, parsed, compiled and
// trusted, loaded into a snapshot, secrets found, a memory's text made fit
// to show (prompt), a memory's anchors checked against git and its state
// kept (stale) (the
// names the edges need of those are engine's: names.go), so that a change
// to any of them stays behind one API.
//
// An edge may import, besides the engine and each other (the command runs
// the others): what is built on the engine (render, tools, extract,
// install, settings, doctor, live), the tool contract (toolspec), the
// options a person sets (options: reading a person's config, the command's
// --options flag or the plugin's object, is an edge's job, and no memory
// is stored, parsed or ranked behind it), and the helpers that serve a
// process rather than hold memories: opencode
// (OpenCode's files and processes), sessionlog (which bodies a session was
// given), mergedriver (git's merge driver, run by the command), watch
// (file events under the roots) and pathsafe (checking a path a request
// names, as the viewer does with an id from its URL, and the type of the
// error the engine returns for one it refuses).
var (
	edges  = []string{"internal/serve", "internal/mcpserver", "internal/ui", "cmd/ocmem"}
	behind = []string{"internal/rank", "internal/index", "internal/textseg", "internal/lexicon", "internal/snapfile",
		"internal/store", "internal/compile", "internal/trust", "internal/memory", "internal/secrets", "internal/anchor",
		"internal/prompt", "internal/snapshot", "internal/tiers", "internal/inspect", "internal/stale"}
)

func TestEdgesThroughEngine(t *testing.T) {
	for _, p := range edgeProblems(packageImports(t, "..")) {
		t.Error(p)
	}
	// The check itself, on made-up edges.
	if got := edgeProblems(map[string][]string{"internal/ui": {"internal/engine", "internal/rank"}}); len(got) != 1 {
		t.Errorf("edgeProblems on an edge importing rank: %q", got)
	}
	if got := edgeProblems(map[string][]string{"cmd/ocmem": {"internal/engine", "internal/store", "internal/watch"}}); len(got) != 1 {
		t.Errorf("edgeProblems on an edge importing store: %q", got)
	}
}

func edgeProblems(imports map[string][]string) []string {
	var out []string
	for _, e := range edges {
		for _, imp := range imports[e] {
			if slices.Contains(behind, imp) {
				out = append(out, fmt.Sprintf("%s imports %s: an edge reaches it through internal/engine", e, imp))
			}
		}
	}
	return out
}

// TestLayerProblems checks the checker on a made-up tree.
func TestLayerProblems(t *testing.T) {
	ls := [][]string{{"a"}, {"b"}, {"c"}}
	imports := map[string][]string{
		"a":            nil,
		"b":            {"a"},
		"c":            {"a", "b", "c2"},
		"new":          nil,
		"internal/e2e": {"c"},
	}
	imports["a"] = []string{"b"}
	imports["b"] = append(imports["b"], "internal/e2e")
	got := layerProblems(imports, ls)
	want := []string{
		"a (layer 0) imports b (layer 1): imports must point down",
		"b imports internal/e2e, a test harness",
		"c imports c2, which is in no layer",
		"new is in no layer: add it to layers in internal/deps_test.go",
	}
	if !slices.Equal(got, want) {
		t.Errorf("layerProblems:\n got %q\nwant %q", got, want)
	}
}

// layerProblems returns a sentence for each import that does not point
// down, and each package that is in no layer.
func layerProblems(imports map[string][]string, layers [][]string) []string {
	layer := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layer[p] = i
		}
	}
	var out []string
	for _, pkg := range sortedKeys(imports) {
		if isExempt(pkg) {
			continue
		}
		from, ok := layer[pkg]
		if !ok {
			out = append(out, pkg+" is in no layer: add it to layers in internal/deps_test.go")
			continue
		}
		for _, imp := range imports[pkg] {
			to, ok := layer[imp]
			switch {
			case isExempt(imp):
				out = append(out, fmt.Sprintf("%s imports %s, a test harness", pkg, imp))
			case !ok:
				out = append(out, fmt.Sprintf("%s imports %s, which is in no layer", pkg, imp))
			case to >= from:
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports must point down", pkg, from, imp, to))
			}
		}
	}
	return out
}

func isExempt(pkg string) bool {
	for _, e := range exempt {
		if pkg == e || strings.HasPrefix(pkg, e+"/") {
			return true
		}
	}
	return false
}

// packageImports maps each folder of the module below root that holds
// non-test Go files to the ocmem packages those files import. The bench
// folder is its own module and is left out.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "bench" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" && pkg != "cmd/ocmem" {
			return nil // a tool or go:generate program: nothing imports it
		}
		list := out[pkg]
		for _, s := range f.Imports {
			p, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(p, module); ok && !slices.Contains(list, rest) {
				list = append(list, rest)
			}
		}
		out[pkg] = list
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
