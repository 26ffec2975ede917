package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/benchgen"
)

// Benchmarks over generated stores (internal/benchgen). Sizes above 1k are
// generated once per process into a temp dir, on first use.

var corpora sync.Map // size → *corpus

type corpus struct {
	dir  string
	err  error
	once sync.Once
}

func benchCorpus(b *testing.B, size int) *corpus {
	b.Helper()
	v, _ := corpora.LoadOrStore(size, &corpus{})
	c := v.(*corpus)
	c.once.Do(func() {
		// OCMEM_BENCH_DIR keeps the generated stores across runs (they are
		// deterministic), so that runs of two builds compared one after
		// the other do not each spend their first 20 seconds writing files.
		if keep := os.Getenv("OCMEM_BENCH_DIR"); keep != "" {
			c.dir = filepath.Join(keep, fmt.Sprint(size))
			marker := filepath.Join(c.dir, "complete")
			if _, err := os.Stat(marker); err == nil {
				return
			}
			if c.err = os.RemoveAll(c.dir); c.err == nil {
				if _, c.err = benchgen.Write(c.dir, benchgen.Config{Memories: size}); c.err == nil {
					c.err = os.WriteFile(marker, nil, 0o644)
				}
			}
			return
		}
		c.dir, c.err = os.MkdirTemp("", fmt.Sprintf("ocmem-bench-%d-", size))
		if c.err == nil {
			_, c.err = benchgen.Write(c.dir, benchgen.Config{Memories: size})
		}
	})
	if c.err != nil {
		b.Fatal(c.err)
	}
	return c
}

// benchEngine is an engine as cmd/ocmem makes one, the collector tuned
// around its builds and writes (Config.TuneGC).
func benchEngine(c *corpus) *Engine {
	return New(Config{GlobalDir: filepath.Join(c.dir, "global"), ProjectDir: filepath.Join(c.dir, "project"),
		Now: func() time.Time { return time.UnixMilli(1_830_000_000_000) }, TuneGC: true})
}

var benchQueries = []string{
	"部署前要检查什么", "redis timeout when the queue consumer retries", "数据库连接池超时怎么办",
	"pnpm-lock.yaml 冲突", "how do we roll back a failed deployment", "缓存 预热",
}

var benchSizes = []int{1000, 10000, 100000}

func BenchmarkLoad(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("memories=%d", size), func(b *testing.B) {
			c := benchCorpus(b, size)
			for b.Loop() {
				// Cold: every file read, parsed and tokenized, no cache.
				if _, err := benchEngine(c).loadFresh(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRecall(b *testing.B) { benchRecall(b, benchQueries, 10) }

// benchRecall times Recall over the queries in turn, at every size, and
// reports the process's CPU time per recall beside the wall time.
func benchRecall(b *testing.B, queries []string, limit int) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("memories=%d", size), func(b *testing.B) {
			c := benchCorpus(b, size)
			e := benchEngine(c)
			if _, err := e.Load(); err != nil {
				b.Fatal(err)
			}
			i := 0
			cpu0, _ := processCPU()
			for b.Loop() {
				if _, err := e.Recall(queries[i%len(queries)], RecallOptions{Limit: limit}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportCPU(b, cpu0, i)
		})
	}
}

// BenchmarkRecallFewHits asks the questions of benchgen's planted needles:
// one memory holds all their words, thousands hold one of them (存储,
// reviews, host). A search has a single strong candidate and must look at
// the weak ones, as the cheap queries of a real store do.
func BenchmarkRecallFewHits(b *testing.B) {
	benchRecall(b, []string{"zebrafish-ttl-7731 被截断怎么办", "鲸鱼存储", "who approves quokka reviews", "narwhalgate host header"}, 4)
}

func BenchmarkInject(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("memories=%d", size), func(b *testing.B) {
			c := benchCorpus(b, size)
			e := benchEngine(c)
			if _, err := e.Load(); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if _, err := e.Inject(benchQueries[i%len(benchQueries)], InjectOptions{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func TestNeedlesRankFirst(t *testing.T) {
	sizes := []int{1000}
	if !testing.Short() && os.Getenv("OCMEM_BENCH_SIZES") == "all" {
		sizes = benchSizes
	}
	for _, size := range sizes {
		dir := t.TempDir()
		needles, err := benchgen.Write(dir, benchgen.Config{Memories: size})
		if err != nil {
			t.Fatal(err)
		}
		e := benchEngine(&corpus{dir: dir})
		for _, n := range needles {
			hits, err := e.Recall(n.Query, RecallOptions{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].ID != n.ID || string(hits[0].Scope) != n.Scope {
				t.Errorf("size %d: needle %q: want %s:%s first, got %v", size, n.Query, n.Scope, n.ID, hits)
			}
		}
	}
}

// BenchmarkLoadCached is a fresh engine (a new process's situation) loading
// with the on-disk load cache written by an earlier load. The listing runs
// on every core, so its cpu-ns/op exceeds ns/op on a quiet machine.
func BenchmarkLoadCached(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("memories=%d", size), func(b *testing.B) {
			c := benchCorpus(b, size)
			b.Setenv("OCMEM_CACHE_DIR", filepath.Join(c.dir, "cache"))
			if _, err := benchEngine(c).Load(); err != nil { // writes the cache
				b.Fatal(err)
			}
			n := 0
			cpu0, _ := processCPU()
			for b.Loop() {
				if _, err := benchEngine(c).Load(); err != nil {
					b.Fatal(err)
				}
				n++
			}
			reportCPU(b, cpu0, n)
		})
	}
}

// BenchmarkReloadOneFile is the serve process after a file event: one memory
// rewritten, then the next recall, which must see the edit. "walk": the
// event did not name the file (Invalidate: every file stat'ed, the index
// rebuilt); "event": it did (InvalidateFile: only that file read, the index
// patched).
func BenchmarkReloadOneFile(b *testing.B) {
	for _, mode := range []string{"walk", "event"} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/memories=%d", mode, size), func(b *testing.B) {
				c := benchCorpus(b, size)
				b.Setenv("OCMEM_CACHE_DIR", filepath.Join(c.dir, "cache"))
				e := benchEngine(c)
				root := filepath.Join(c.dir, "project")
				path := filepath.Join(root, "facts", "reload-bench.md")
				write := func(i int) {
					body := fmt.Sprintf("---\nid: facts/reload-bench\nkind: fact\nsummary: reload probe %d\n---\nbody\n", i)
					if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				write(0)
				if _, err := e.Load(); err != nil {
					b.Fatal(err)
				}
				i := 0
				for b.Loop() {
					i++
					write(i)
					if mode == "event" {
						e.InvalidateFile(root, path)
					} else {
						e.Invalidate()
					}
					hits, err := e.Recall(fmt.Sprintf("reload probe %d", i), RecallOptions{Limit: 1})
					if err != nil || len(hits) == 0 || hits[0].ID != "facts/reload-bench" {
						b.Fatalf("reload missed the edit: %v %v", hits, err)
					}
				}
			})
		}
	}
}

// reportCPU reports the process's CPU time per operation since cpu0 as
// cpu-ns/op. On a shared machine it moves less than the wall time ns/op,
// which also counts the time other processes hold the cores.
func reportCPU(b *testing.B, cpu0 time.Duration, ops int) {
	if cpu1, ok := processCPU(); ok && ops > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(ops), "cpu-ns/op")
	}
}
