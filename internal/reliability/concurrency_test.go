package reliability_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// TestConcurrentServeAndCLI runs, on the same two roots and for a bounded
// time, two `ocmem serve` processes (each with two sessions sending
// requests at once) and several CLI writers and readers, while a checker
// keeps reading the roots as an editor would. Then every memory any of
// them was told was written is on disk and parses, every index.md and
// ROOT.md is exactly what compile writes, .state.json is valid JSON, and
// inspect is clean. Every request has a deadline: a deadlock fails the
// test.
func TestConcurrentServeAndCLI(t *testing.T) {
	dur := 4 * time.Second
	if long() {
		dur = 20 * time.Second
	}
	w := newWorld(t)
	// One memory in each root to begin with, so both roots and their
	// indexes exist from the start.
	for _, scope := range []string{"project", "global"} {
		if r := w.ocmem(t, "", "remember", "--scope", scope, "--category", "facts", "--kind", "fact", "--summary", "seed memory of the "+scope+" root", "--body", "Seed."); r.code != 0 {
			t.Fatalf("seed: %s", r.stderr)
		}
	}
	// The person trusts the repository: serve's writes are a model's, and
	// a model writes the global root only from a trusted project.
	if r := w.ocmem(t, "", "trust", filepath.Join(w.dir, "repo")); r.code != 0 {
		t.Fatalf("trust: %s", r.stderr)
	}

	var (
		mu        sync.Mutex
		written   = map[string]bool{} // "scope:id"
		forgotten = map[string]bool{}
		counts    = map[string]int{}
	)
	record := func(kind string, keys ...string) {
		mu.Lock()
		defer mu.Unlock()
		counts[kind]++
		for _, k := range keys {
			switch kind {
			case "forget":
				forgotten[k] = true
			default:
				written[k] = true
			}
		}
	}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	run := func(name string, fn func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline) && !t.Failed(); i++ {
				fn(i)
			}
		}()
	}

	// Two serve processes, two sessions each.
	var procs []*serveProc
	for p := range 2 {
		sp := startServe(t, w)
		procs = append(procs, sp)
		for s := range 2 {
			session := fmt.Sprintf("ses_%d_%d", p, s)
			run(session, func(i int) {
				common := map[string]any{"sessionID": session, "worktree": filepath.Dir(w.project)}
				with := func(kv ...any) map[string]any {
					m := map[string]any{}
					for k, v := range common {
						m[k] = v
					}
					for j := 0; j+1 < len(kv); j += 2 {
						m[kv[j].(string)] = kv[j+1]
					}
					return m
				}
				switch i % 5 {
				case 0, 3:
					scope := []string{"project", "global"}[i%2]
					r := sp.call(t, "remember", with("scope", scope, "category", []string{"facts", "pitfalls"}[i%2], "kind", "fact",
						"summary", fmt.Sprintf("%s note %d about concurrency", session, i), "body", "Written by serve.", "load_when", []string{"concurrency"}))
					if r.Error != nil {
						t.Errorf("%s remember: %+v", session, r.Error)
						return
					}
					record("serve remember", r.Result.IDs...)
				case 1:
					if r := sp.call(t, "system", with()); r.Error != nil || !strings.Contains(r.Result.Text, "Memory outline") {
						t.Errorf("%s system: %+v %q", session, r.Error, r.Result.Text)
					}
					record("serve system")
				case 2:
					if r := sp.call(t, "message", with("messageID", fmt.Sprint(i), "text", "what about concurrency notes")); r.Error != nil {
						t.Errorf("%s message: %+v", session, r.Error)
					}
					record("serve message")
				case 4:
					if r := sp.call(t, "recall", with("query", "concurrency note")); r.Error != nil {
						t.Errorf("%s recall: %+v", session, r.Error)
					}
					record("serve recall")
				}
			})
		}
	}
	// CLI writers: write, and now and then forget what they wrote.
	for c := range 3 {
		var mine []string
		run(fmt.Sprintf("cli writer %d", c), func(i int) {
			if i%4 == 3 && len(mine) > 0 {
				id := mine[0]
				mine = mine[1:]
				if r := w.ocmem(t, "", "forget", "--scope", "project", id); r.code != 0 {
					t.Errorf("forget %s: %s", id, r.stderr)
				}
				record("forget", "project:"+id)
				return
			}
			r := w.ocmem(t, "", "remember", "--json", "--category", "decisions", "--kind", "decision",
				"--summary", fmt.Sprintf("CLI writer %d decision %d about concurrency", c, i), "--body", "Written by the CLI.")
			if r.code != 0 {
				t.Errorf("cli remember: exit %d: %s", r.code, r.stderr)
				return
			}
			var out engine.Written
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Errorf("cli remember --json: %v: %s", err, r.stdout)
				return
			}
			mine = append(mine, out.ID)
			record("cli remember", string(out.Scope)+":"+out.ID)
		})
	}
	// CLI readers.
	for c := range 2 {
		run(fmt.Sprintf("cli reader %d", c), func(i int) {
			args := [][]string{{"recall", "--json", "concurrency"}, {"inject", "--json", "concurrency"}, {"inspect", "--json"}}[i%3]
			r := w.ocmem(t, "", args...)
			// inspect may catch a write between its memory file and its
			// compile (exit 1); anything else is a failure.
			if r.code != 0 && !(args[0] == "inspect" && r.code == 1) || !json.Valid([]byte(r.stdout)) {
				t.Errorf("ocmem %s: exit %d, stdout valid JSON %v: %s", args[0], r.code, json.Valid([]byte(r.stdout)), r.stderr)
			}
			record("cli " + args[0])
		})
	}
	// An editor's view: every file a reader can see is whole.
	run("checker", func(int) {
		checkWhole(t, w.project)
		checkWhole(t, w.global)
		record("checker pass")
	})

	watchdog(t, dur+2*callTimeout, "the concurrent run", wg.Wait)
	for _, sp := range procs {
		sp.close(t)
	}
	if t.Failed() {
		return
	}

	// Every memory written is there and parses; every forgotten one is gone.
	e := engine.New(engine.Config{GlobalDir: w.global, ProjectDir: w.project})
	snap, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snap.Problems {
		t.Errorf("after the run: %v", p)
	}
	for key := range written {
		scope, id, _ := strings.Cut(key, ":")
		f := snap.Lookup(store.Scope(scope), id)
		switch {
		case forgotten[key] && f != nil:
			t.Errorf("%s was forgotten but is on disk", key)
		case !forgotten[key] && f == nil:
			t.Errorf("%s was acknowledged but is not on disk", key)
		}
	}
	// Every index is whole: byte for byte what compile writes.
	for _, r := range []store.Root{e.Root(store.Global), e.Root(store.Project)} {
		var mems []*memory.Memory
		for _, f := range snap.Files() {
			if f.Scope == r.Scope {
				mems = append(mems, f.Memory)
			}
		}
		for _, c := range compile.Categories(options.DefaultCategories, mems) {
			have, err := r.ReadFile(c + "/" + store.IndexFile)
			if err != nil || string(have) != string(compile.Index(c, mems)) {
				t.Errorf("%s %s/index.md is not what compile writes (%v)", r.Scope, c, err)
			}
		}
		if b, err := os.ReadFile(filepath.Join(r.Dir, store.StateFile)); err == nil && !json.Valid(b) {
			t.Errorf("%s .state.json is not valid JSON:\n%s", r.Scope, b)
		}
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	for _, is := range rep.Issues {
		t.Errorf("inspect after the run: %s", is)
	}
	t.Logf("%v: %d memories written, %d forgotten; %v", dur, len(written), len(forgotten), counts)
	if len(written) < 10 {
		t.Errorf("only %d memories written: too little to mean anything", len(written))
	}
}

// checkWhole reads every file of a root that a person or git would: each
// memory parses, .state.json is JSON. Writes are atomic renames, so a
// reader never sees half a file.
func checkWhole(t *testing.T, root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // renamed away meanwhile
		}
		switch {
		case name == store.StateFile:
			if !json.Valid(b) {
				t.Errorf("torn .state.json: %q", b)
			}
		case strings.HasPrefix(name, "."), name == store.IndexFile, name == store.RootFile, !strings.HasSuffix(name, ".md"):
		default:
			if _, err := memory.Parse(b); err != nil {
				t.Errorf("torn memory %s: %v", p, err)
			}
		}
		return nil
	})
}
