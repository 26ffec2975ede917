package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// writeWorld is two long-lived engines over the same roots, as two serve
// processes are, each told of the files that change as its watcher would
// tell it, sometimes late; and fresh engines, as CLI commands are.
type writeWorld struct {
	t       *testing.T
	r       *rand.Rand
	rs      roots
	engines []*Engine
	pending [][]string // per engine: changed paths it has not been told of yet
	words   []string
}

func (w *writeWorld) engine(i int) *Engine {
	if i == len(w.engines) {
		return w.rs.engine(options.Options{}) // a fresh CLI process
	}
	return w.engines[i]
}

// files lists the memory files and ROOT.md of both roots with their content.
func (w *writeWorld) files() map[string]string {
	out := map[string]string{}
	for _, dir := range []string{w.rs.global, w.rs.project} {
		for k, v := range tree(w.t, dir) {
			if k == store.RootFile || strings.HasSuffix(k, ".md") && !strings.HasSuffix(k, "/"+store.IndexFile) {
				out[filepath.Join(dir, filepath.FromSlash(k))] = v
			}
		}
	}
	return out
}

// memoryPaths lists the memory files of a root.
func (w *writeWorld) memoryPaths(dir string) []string {
	var out []string
	for p := range w.files() {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) && filepath.Base(p) != store.RootFile {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (w *writeWorld) text(n int) string {
	var ws []string
	for range n {
		ws = append(ws, w.words[w.r.IntN(len(w.words))])
	}
	return strings.Join(ws, " ")
}

func (w *writeWorld) scope() (store.Scope, string) {
	if w.r.IntN(3) == 0 {
		return store.Global, w.rs.global
	}
	return store.Project, w.rs.project
}

// step does one random write by engine who and says what it did.
func (w *writeWorld) step(who int) string {
	e := w.engine(who)
	scope, dir := w.scope()
	paths := w.memoryPaths(dir)
	pick := func() (string, string) {
		p := paths[w.r.IntN(len(paths))]
		rel, _ := filepath.Rel(dir, p)
		return p, strings.TrimSuffix(filepath.ToSlash(rel), ".md")
	}
	switch op := w.r.IntN(10); {
	case op < 4 || len(paths) == 0:
		cats := []string{"facts", "pitfalls", "rules", "notes", "decisions"}
		req := RememberRequest{Scope: scope, Category: cats[w.r.IntN(len(cats))], Kind: memory.KindFact,
			Summary: w.text(3), Body: w.text(5), Pinned: w.r.IntN(6) == 0}
		for range w.r.IntN(3) {
			req.LoadWhen = append(req.LoadWhen, w.words[w.r.IntN(len(w.words))])
		}
		if len(paths) > 0 && w.r.IntN(3) == 0 {
			_, req.Supersedes = pick()
		}
		_, err := e.Remember(req)
		return fmt.Sprintf("remember %s %q supersedes %q: %v", scope, req.Summary, req.Supersedes, err)
	case op < 7:
		_, id := pick()
		_, err := e.Forget(scope, id, FromPerson)
		return fmt.Sprintf("forget %s:%s: %v", scope, id, err)
	default:
		// A hand edit: a summary, triggers or kind changed, a file
		// removed, or a new file in a new folder; then the compile that
		// a serve process runs once its watcher told it.
		if who == len(w.engines) {
			who = 0
		}
		e = w.engines[who]
		p, id := pick()
		what := "edit"
		switch w.r.IntN(4) {
		case 0:
			os.Remove(p)
			what = "remove"
		case 1:
			id = "hand" + fmt.Sprint(w.r.IntN(3)) + "/" + strings.ReplaceAll(w.text(1), " ", "-")
			writeMemory(w.t, dir, &memory.Memory{ID: id, Kind: memory.KindPitfall, Summary: w.text(2), LoadWhen: []string{w.text(1)}})
			what = "add"
		default:
			m := readMemory(w.t, p)
			m.Summary, m.LoadWhen = w.text(3), []string{w.text(1), strings.ToUpper(w.text(1))}
			if w.r.IntN(2) == 0 {
				m.Kind = memory.KindDecision
			}
			writeString(w.t, p, string(m.Format()))
		}
		w.tell(who, w.changedSince(nil))
		_, err := e.CompileChanged(scope)
		return fmt.Sprintf("hand %s %s:%s, then compile: %v", what, scope, id, err)
	}
}

// changedSince returns the paths that differ from before (nil: those the
// last call saw).
var lastFiles map[string]string

func (w *writeWorld) changedSince(before map[string]string) []string {
	if before == nil {
		before = lastFiles
	}
	after := w.files()
	var out []string
	for p, v := range after {
		if before[p] != v {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	lastFiles = after
	sort.Strings(out)
	return out
}

// tell queues changed paths for every engine but skip, then delivers each
// engine's queue, some of them late.
func (w *writeWorld) tell(skip int, paths []string) {
	for i, e := range w.engines {
		w.pending[i] = append(w.pending[i], paths...)
		if i != skip && w.r.IntN(3) == 0 {
			continue // its watcher has not caught up yet
		}
		for _, p := range w.pending[i] {
			root := w.rs.global
			if strings.HasPrefix(p, w.rs.project+string(filepath.Separator)) {
				root = w.rs.project
			}
			e.InvalidateFile(root, p)
		}
		w.pending[i] = nil
	}
}

// Random sequences of remembers, supersedes, forgets and hand edits, by two
// long-lived engines and fresh ones: after each, a full compile of the
// roots changes nothing, and each long-lived engine that has heard of every
// change answers as an engine that loads the roots afresh.
func TestWritesEqualFullCompile(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	words := strings.Fields("deploy redis 部署 缓存 kafka retention nginx 超时 SQLite migration 回滚 pnpm")
	steps := 60
	if testing.Short() {
		steps = 20
	}
	for seed := range uint64(4) {
		rs := newRoots(t)
		writeString(t, filepath.Join(rs.project, store.RootFile), "# Memory\n\n## Goals\n\nShip it.\n")
		w := &writeWorld{t: t, r: rand.New(rand.NewPCG(seed, 26)), rs: rs, words: words}
		w.engines = []*Engine{rs.engine(options.Options{}), rs.engine(options.Options{})}
		w.pending = make([][]string, len(w.engines))
		if _, err := rs.engine(options.Options{}).Compile(); err != nil { // the writes start from a compiled root
			t.Fatal(err)
		}
		lastFiles = w.files()
		for i := range steps {
			who := w.r.IntN(len(w.engines) + 1)
			what := w.step(who)
			w.tell(who, w.changedSince(nil))
			if changed, err := w.rs.engine(options.Options{}).Compile(); err != nil || len(changed) > 0 {
				t.Fatalf("seed %d step %d (%s): a full compile changed %q (%v)", seed, i, what, changed, err)
			}
			w.compareViews(fmt.Sprintf("seed %d step %d (%s)", seed, i, what))
		}
	}
}

// compareViews checks that each engine told of every change answers as a
// fresh one.
func (w *writeWorld) compareViews(what string) {
	w.t.Helper()
	fresh := w.rs.engine(options.Options{})
	queries := append(slices.Clone(w.words), "deploy redis", "部署 缓存 kafka")
	for i, e := range w.engines {
		if len(w.pending[i]) > 0 {
			continue
		}
		for _, q := range queries {
			got, gerr := e.Recall(q, RecallOptions{Now: testNow, Limit: 20})
			want, werr := fresh.Recall(q, RecallOptions{Now: testNow, Limit: 20})
			if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
				w.t.Fatalf("%s: engine %d: %q:\n got %v (%v)\nwant %v (%v)", what, i, q, hitIDs(got), gerr, hitIDs(want), werr)
			}
		}
		a, aerr := e.Stable()
		b, berr := fresh.Stable()
		if aerr != nil || berr != nil || a.System() != b.System() {
			w.t.Fatalf("%s: engine %d: stable tiers differ (%v, %v):\n%s\n---\n%s", what, i, aerr, berr, a.System(), b.System())
		}
	}
}

// Most of a root changed at once (a checkout), each file reported: the
// tables are built again and every compiled file is brought up to date.
func TestCompileChangedAfterACheckout(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "the first fact"})
	for i := range snapshot.MaxPatched + 10 {
		cat := []string{"facts", "notes", "pitfalls"}[i%3]
		m := &memory.Memory{ID: fmt.Sprintf("%s/checked-out-%d", cat, i), Kind: memory.KindFact, Summary: fmt.Sprintf("checked out %d", i),
			LoadWhen: []string{fmt.Sprint("trigger ", i%5)}}
		writeMemory(t, rs.project, m)
		e.InvalidateFile(rs.project, filepath.Join(rs.project, filepath.FromSlash(m.ID)+".md"))
	}
	if _, err := e.CompileChanged(store.Project); err != nil {
		t.Fatal(err)
	}
	if changed, err := rs.engine(options.Options{}).Compile(); err != nil || len(changed) > 0 {
		t.Errorf("a full compile after the checkout's compile changed %q (%v)", changed, err)
	}
}
