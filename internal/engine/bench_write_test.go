package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// The write benchmarks run in two situations: "serve", one engine that
// keeps its snapshot between writes and is told of each write's compiled
// files as serve's watcher tells it (heardWrite), and "cli", a fresh engine per write
// (a new `ocmem remember` process) starting from the load cache. Every
// memory they write is forgotten again afterwards, so the stores stay as
// generated (plus their compiled files, which the first write makes).

var writeModes = []string{"serve", "cli"}

// writeBench runs fn(e, i) once per iteration over a store of each size,
// e being the serve engine or a fresh one.
func writeBench(b *testing.B, modes []string, setup func(e *Engine), fn func(b *testing.B, e *Engine, i int), cleanup func(e *Engine)) {
	for _, mode := range modes {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/memories=%d", mode, size), func(b *testing.B) {
				c := benchCorpus(b, size)
				b.Setenv("OCMEM_CACHE_DIR", filepath.Join(c.dir, "cache"))
				serve := benchEngine(c)
				if _, err := serve.Load(); err != nil {
					b.Fatal(err)
				}
				setup(serve)
				engine := func() *Engine {
					if mode == "cli" {
						return benchEngine(c)
					}
					return serve
				}
				i := 0
				cpu0, _ := processCPU()
				for b.Loop() {
					fn(b, engine(), i)
					if mode == "serve" {
						heardWrite(serve)
					}
					i++
				}
				reportCPU(b, cpu0, i)
				b.StopTimer()
				cleanup(serve)
			})
		}
	}
}

// heardWrite is what serve's watcher reports after a write in the project
// root's facts, the category every write benchmark writes in: ROOT.md and
// the category's index.md replaced. (The memory file's own event costs a
// stat.)
func heardWrite(e *Engine) {
	root := e.Root(store.Project).Dir
	e.InvalidateFile(root, filepath.Join(root, store.RootFile))
	e.InvalidateFile(root, filepath.Join(root, "facts", store.IndexFile))
}

func benchRemember(b *testing.B, e *Engine, i int) string {
	b.Helper()
	w, err := e.Remember(RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact,
		Summary: fmt.Sprintf("write bench %d: the staging queue drains before a deploy", i), LoadWhen: []string{"部署", "write bench"},
		Body: "Measured by BenchmarkRemember.", Source: FromPerson})
	if err != nil || w.Warning != "" {
		b.Fatalf("remember: %v %+v", err, w)
	}
	return w.ID
}

func benchForget(b *testing.B, e *Engine, id string) {
	b.Helper()
	if w, err := e.Forget(store.Project, id, FromPerson); err != nil || w.Warning != "" {
		b.Fatalf("forget %s: %v %+v", id, err, w)
	}
}

// BenchmarkRemember is one new memory in the project root, its category's
// index.md and ROOT.md rewritten.
func BenchmarkRemember(b *testing.B) {
	var ids []string
	writeBench(b, writeModes, func(e *Engine) {
		ids = nil
		benchForget(b, e, benchRemember(b, e, -1)) // the compiled files exist from here on
	}, func(b *testing.B, e *Engine, i int) {
		ids = append(ids, benchRemember(b, e, i))
	}, func(e *Engine) {
		for _, id := range ids {
			benchForget(b, e, id)
		}
	})
}

// BenchmarkForget is one memory deleted from the project root; remembering
// it first, by the serve engine, is not timed (its CPU is in cpu-ns/op).
func BenchmarkForget(b *testing.B) {
	var writer *Engine
	writeBench(b, writeModes, func(e *Engine) {
		writer = e
		benchForget(b, e, benchRemember(b, e, -1))
	}, func(b *testing.B, e *Engine, i int) {
		b.StopTimer()
		id := benchRemember(b, writer, i)
		b.StartTimer()
		benchForget(b, e, id)
	}, func(*Engine) {})
}

// BenchmarkHandEdit is what serve does after a person edits a memory's
// summary and triggers: the watcher's event, the compile of what changed,
// and the next recall, which must find the edit.
func BenchmarkHandEdit(b *testing.B) {
	var path, root string
	write := func(i int) {
		m := &memory.Memory{ID: "facts/hand-edit-bench", Kind: memory.KindFact, Summary: fmt.Sprintf("hand edit probe %d", i),
			LoadWhen: []string{fmt.Sprintf("probe-%d", i%7)}, Created: 1, Updated: 1}
		if err := os.WriteFile(path, m.Format(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	writeBench(b, []string{"serve"}, func(e *Engine) {
		root = e.Root(store.Project).Dir
		path = filepath.Join(root, "facts", "hand-edit-bench.md")
		write(0)
		e.InvalidateFile(root, path)
		if _, err := e.CompileChanged(store.Project); err != nil {
			b.Fatal(err)
		}
	}, func(b *testing.B, e *Engine, i int) {
		write(i + 1)
		e.InvalidateFile(root, path)
		if wrote, err := e.CompileChanged(store.Project); err != nil || len(wrote) == 0 {
			b.Fatalf("compile after the edit: %v %v", wrote, err)
		}
		hits, err := e.Recall(fmt.Sprintf("hand edit probe %d", i+1), RecallOptions{Limit: 1})
		if err != nil || len(hits) == 0 || hits[0].ID != "facts/hand-edit-bench" {
			b.Fatalf("the recall missed the edit: %v %v", hits, err)
		}
	}, func(e *Engine) {
		os.Remove(path)
		e.InvalidateFile(root, path)
		if _, err := e.CompileChanged(store.Project); err != nil {
			b.Fatal(err)
		}
	})
}
