package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode"

	"github.com/ocmem/ocmem/internal/benchgen"
	"github.com/ocmem/ocmem/internal/memory"
)

type corpus struct {
	size            int
	dir             string // holds global/, project/ and the FTS5 database
	global, project string
	needles         []benchgen.Needle
	generated       time.Duration // 0 when an earlier run's corpus was reused
}

// doneFile marks a corpus as complete. It is written last, so that a run
// interrupted while generating regenerates rather than measuring half a store.
const doneFile = "needles.json"

func prepareCorpus(base string, size int) (*corpus, error) {
	c := &corpus{size: size, dir: filepath.Join(base, fmt.Sprint(size))}
	c.global, c.project = filepath.Join(c.dir, "global"), filepath.Join(c.dir, "project")
	if b, err := os.ReadFile(filepath.Join(c.dir, doneFile)); err == nil {
		if err := json.Unmarshal(b, &c.needles); err == nil {
			logf("%d memories: reusing %s", size, c.dir)
			return c, nil
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return nil, err
	}
	logf("%d memories: generating into %s", size, c.dir)
	start := time.Now()
	needles, err := benchgen.Write(c.dir, benchgen.Config{Memories: size})
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	c.generated = time.Since(start)
	c.needles = needles
	b, _ := json.MarshalIndent(needles, "", "  ")
	return c, os.WriteFile(filepath.Join(c.dir, doneFile), b, 0o644)
}

// memoryPath finds the file of a generated memory by its number: benchgen
// names them m000123 under a category chosen at random, in either root.
func (c *corpus) memoryPath(n int) (string, error) {
	for _, root := range []string{c.project, c.global} {
		ms, _ := filepath.Glob(filepath.Join(root, "*", fmt.Sprintf("m%06d.md", n)))
		if len(ms) == 1 {
			return ms[0], nil
		}
	}
	return "", fmt.Errorf("memory m%06d: %w", n, fs.ErrNotExist)
}

// A query is one line of the fixed query set.
type query struct {
	Text string `json:"q"`
	Kind string `json:"kind"` // zh, en, mixed, ident, derived, negative, needle
	// Want is "scope:id" of the memory that must rank first; needles only.
	Want string `json:"want,omitempty"`
}

// queryKinds lists the kinds of query in the order reports show them.
var queryKinds = []string{"zh", "en", "mixed", "ident", "derived", "negative", "needle"}

// handQueries are what people type to a coding agent about the kind of
// project benchgen describes: its topic words, in both languages, mixed,
// and the identifiers it plants. Short Chinese words separated by spaces are
// in on purpose: FTS5 trigram cannot express them at all.
var handQueries = []struct{ text, kind string }{
	{"部署前要检查什么", "zh"},
	{"数据库连接池超时怎么办", "zh"},
	{"缓存 预热", "zh"},
	{"订单 幂等 重试", "zh"},
	{"灰度发布失败要回滚吗", "zh"},
	{"日志里的手机号要脱敏", "zh"},
	{"支付回调签名校验失败", "zh"},
	{"定时任务告警太多", "zh"},
	{"分页 排序 性能", "zh"},
	{"权限审计的规范", "zh"},
	{"redis timeout when the queue consumer retries", "en"},
	{"how do we roll back a failed deployment", "en"},
	{"kafka consumer deadlock in production", "en"},
	{"jwt oauth cors middleware", "en"},
	{"never bump the schema without a migration", "en"},
	{"goroutine leak with mutex and context", "en"},
	{"nginx latency on the staging cluster", "en"},
	{"pnpm-lock.yaml 冲突", "mixed"},
	{"redis 缓存 超时", "mixed"},
	{"docker 镜像构建太慢", "mixed"},
	{"kubernetes 集群节点告警", "mixed"},
	{"mysql 死锁和事务", "mixed"},
	{"grpc 接口超时重试", "mixed"},
	{"orderService", "ident"},
	{"user_id", "ident"},
	{"max_conns readTimeout", "ident"},
	{"X-Request-ID", "ident"},
	{"k8s.io/client-go", "ident"},
	{"idempotency_key", "ident"},
	{"utf8mb4", "ident"},
	{"HTTPServer retryPolicy", "ident"},
	{".env.example", "ident"},
	{"what is the weather like today", "negative"},
	{"今天中午吃什么", "negative"},
}

// derivedEvery picks the memories that derived queries are made from: about
// fifteen spread over the first thousand, which exist in every corpus.
const derivedEvery = 67

// buildQueries returns the query set: the hand-written queries, queries made
// from the long-tail words of generated memories (rare terms, which is where
// an index earns its keep), and the planted needles.
func buildQueries(c *corpus) ([]query, error) {
	var qs []query
	for _, h := range handQueries {
		qs = append(qs, query{Text: h.text, Kind: h.kind})
	}
	for n := 0; n < min(c.size, 1000); n += derivedEvery {
		path, err := c.memoryPath(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		m, err := memory.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// benchgen's triggers are [topic, Chinese topic, long-tail word, …];
		// a Chinese summary starts with a long-tail bigram.
		if len(m.LoadWhen) < 3 {
			continue
		}
		var q string
		if s := []rune(m.Summary); unicode.Is(unicode.Han, s[0]) {
			q = string(s[:2]) + m.LoadWhen[1] + "要注意什么"
		} else if n%2 == 0 {
			q = m.LoadWhen[2] + " " + m.LoadWhen[0]
		} else {
			q = m.LoadWhen[2] + " " + m.LoadWhen[1]
		}
		qs = append(qs, query{Text: q, Kind: "derived"})
	}
	for _, n := range c.needles {
		qs = append(qs, query{Text: n.Query, Kind: "needle", Want: n.Scope + ":" + n.ID})
	}
	return qs, nil
}

// rewriteSummary replaces a memory file's summary, as someone editing it by
// hand would, and returns the original bytes for restoring it.
func rewriteSummary(path, summary string) ([]byte, error) {
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := memory.Parse(orig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Summary = summary
	return orig, os.WriteFile(path, m.Format(), 0o644)
}

// cacheDir is where ocmem keeps its load cache while measuring this corpus
// ($OCMEM_CACHE_DIR, set for the engine in this process and for every CLI
// run): a cold start deletes it, and the user's own cache is left alone.
func (c *corpus) cacheDir() string { return filepath.Join(c.dir, "cache") }

func (c *corpus) removeCaches() error { return os.RemoveAll(c.cacheDir()) }

// hasCache reports whether ocmem wrote anything into its cache directory.
func (c *corpus) hasCache() bool {
	found := false
	filepath.WalkDir(c.cacheDir(), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
