package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
)

type sizeResult struct {
	Memories  int     `json:"memories"`
	Documents int     `json:"documents"` // memory files loaded, needles included
	GenerateS float64 `json:"generate_s,omitempty"`

	// The serve process's situation: one engine, loaded once, queried often.
	EngineLoadMS float64 `json:"engine_load_ms"` // first Load of a new engine, no cache on disk
	EngineHeapMB float64 `json:"engine_heap_mb"` // live Go heap the loaded engine holds, after GC
	// The same, for an engine that found the load cache the first one wrote
	// (0: no cache was written).
	EngineCachedLoadMS float64 `json:"engine_cached_load_ms"`
	EngineCachedHeapMB float64 `json:"engine_cached_heap_mb"`
	// The stable tiers (hard rules and outline) of the engine's first
	// injection, and the outline's size against its budget.
	StableMS      float64     `json:"stable_ms"`
	OutlineChars  int         `json:"outline_chars"`
	OutlineBudget int         `json:"outline_budget"`
	Recall        latency     `json:"recall"`
	FTS           []ftsResult `json:"fts5"`
	FTSFileMB     float64     `json:"fts5_file_mb"` // the database holding all three tables
	// Per system: p50 by query kind, and how many queries found anything
	// (an index that finds nothing for a query answers it fast).
	ByKind   map[string]map[string]float64 `json:"p50_ms_by_kind"`
	Answered map[string]int                `json:"queries_answered"`
	Slowest  []queryLatency                `json:"ocmem_slowest_queries"`

	// A file changed: serve invalidates and the next recall reloads.
	Reload      runStats `json:"reload"`
	ReloadFresh bool     `json:"reload_fresh"` // every reload's recall found the edit

	// A fresh `ocmem recall` process.
	CLICold      runStats `json:"cli_cold"`
	CLIWarm      runStats `json:"cli_warm"`
	CLIColdRSSMB float64  `json:"cli_cold_rss_mb"` // the largest peak RSS of the cold runs
	CLIWarmRSSMB float64  `json:"cli_warm_rss_mb"`
	CacheWritten bool     `json:"cache_written"` // a cold run left .ocmem-cache/ behind

	// `ocmem serve` started with the cache: its first request (start, load,
	// stable tiers) and its peak RSS after a message and every query (0:
	// not measurable here).
	ServeFirstMS float64 `json:"serve_first_ms"`
	ServeRSSMB   float64 `json:"serve_rss_mb"`

	Needles []needleResult `json:"needles"`

	// The write path, per binary measured (-writes).
	Writes []writeResult `json:"writes,omitempty"`
}

type ftsResult struct {
	Name         string  `json:"name"`
	BuildMS      float64 `json:"build_ms"`
	Recall       latency `json:"recall"`
	RatioP50     float64 `json:"ocmem_over_fts5_p50"`
	RatioP99     float64 `json:"ocmem_over_fts5_p99"`
	NoTerms      int     `json:"queries_without_terms"` // answered empty without asking SQLite
	NeedlesFirst int     `json:"needles_first"`
}

type queryLatency struct {
	Query string  `json:"q"`
	P50   float64 `json:"p50_ms"`
}

func systemNames() []string {
	names := []string{"ocmem"}
	for _, s := range ftsSystems {
		names = append(names, s.Name)
	}
	return names
}

type needleResult struct {
	Query  string `json:"query"`
	Want   string `json:"want"`
	Engine string `json:"engine_first"`
	CLI    string `json:"cli_first,omitempty"` // empty when no CLI run asked this needle
	Pass   bool   `json:"pass"`
}

func measureSize(c config, bin string, cor *corpus, qs []query) (*sizeResult, error) {
	res := &sizeResult{Memories: cor.size, GenerateS: cor.generated.Seconds()}
	if c.writes || c.writesOnly {
		bins := []string{bin}
		if c.compare != "" {
			bins = append(bins, c.compare)
		}
		logf("%d memories: the write path, %d runs of %d binaries", cor.size, c.runs, len(bins))
		w, err := measureWrites(bins, cor, c.runs)
		if err != nil {
			return nil, fmt.Errorf("writes: %w", err)
		}
		res.Writes = w
		if c.writesOnly {
			return res, nil
		}
	}
	// Recalls by the CLI and by serve count (.state.json), and counters
	// raise scores: put the roots' state back, so that every run ranks the
	// same corpus.
	defer keepState(cor.global, cor.project)()
	if err := cor.removeCaches(); err != nil {
		return nil, err
	}
	if err := os.Setenv("OCMEM_CACHE_DIR", cor.cacheDir()); err != nil {
		return nil, err
	}

	e, load, heap, err := loadEngine(cor)
	if err != nil {
		return nil, err
	}
	res.EngineLoadMS, res.EngineHeapMB = ms(load), heap
	logf("%d memories: engine loaded in %.0f ms, %.0f MB live heap", cor.size, res.EngineLoadMS, res.EngineHeapMB)
	if cor.hasCache() {
		// The first load wrote the cache; a serve process started later
		// loads from it, and what it then holds is what it keeps holding.
		cached, load, heap, err := loadEngine(cor)
		if err != nil {
			return nil, err
		}
		e = cached
		res.EngineCachedLoadMS, res.EngineCachedHeapMB = ms(load), heap
		logf("%d memories: engine loaded from its cache in %.0f ms, %.0f MB live heap", cor.size, ms(load), heap)
	}

	start := time.Now()
	st, err := e.Stable()
	if err != nil {
		return nil, err
	}
	res.StableMS = ms(time.Since(start))
	res.OutlineChars, res.OutlineBudget = utf8.RuneCountInString(st.Outline), e.Options().MaxOutlineChars
	if res.OutlineBudget == 0 {
		res.OutlineBudget = options.DefaultMaxOutlineChars
	}
	logf("%d memories: stable tiers in %.0f ms, outline %d of %d characters", cor.size, res.StableMS, res.OutlineChars, res.OutlineBudget)

	for _, q := range qs {
		if q.Want == "" {
			continue
		}
		hits, err := e.Recall(q.Text, engine.RecallOptions{Limit: 4})
		if err != nil {
			return nil, err
		}
		n := needleResult{Query: q.Text, Want: q.Want, Engine: "(none)"}
		if len(hits) > 0 {
			n.Engine = hits[0].Key()
		}
		res.Needles = append(res.Needles, n)
	}

	docs, err := loadDocs(cor)
	if err != nil {
		return nil, err
	}
	res.Documents = len(docs)
	logf("%d memories: building FTS5 tables", cor.size)
	x, err := openFTS(filepath.Join(cor.dir, "fts5.sqlite"), docs, qs)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	res.FTSFileMB = float64(x.bytes) / (1 << 20)
	if err := x.writeQueries(filepath.Join(cor.dir, "fts5-queries.json"), qs); err != nil {
		return nil, err
	}

	logf("%d memories: %d rounds of %d queries on ocmem and %d FTS5 tables", cor.size, c.rounds, len(qs), len(ftsSystems))
	t, err := interleave(e, x, qs, c.rounds)
	if err != nil {
		return nil, err
	}
	if err := res.summarize(t, x, qs); err != nil {
		return nil, err
	}

	logf("%d memories: %d one-file reloads", cor.size, c.runs)
	if res.Reload, res.ReloadFresh, err = measureReload(e, cor, c.runs); err != nil {
		return nil, err
	}
	e = nil
	runtime.GC()

	logf("%d memories: %d fresh processes, cold and warm", cor.size, c.runs)
	if err := measureCLI(res, bin, cor, qs, c.runs); err != nil {
		return nil, err
	}
	logf("%d memories: ocmem serve, from the cache", cor.size)
	first, rss, err := measureServe(bin, cor, qs)
	if err != nil {
		return nil, err
	}
	res.ServeFirstMS, res.ServeRSSMB = ms(first), rss
	for i := range res.Needles {
		n := &res.Needles[i]
		n.Pass = n.Engine == n.Want && (n.CLI == "" || n.CLI == n.Want)
	}
	return res, nil
}

// summarize turns the timings into the report's figures: latencies, ratios,
// p50 by query kind, and what each FTS5 table could answer.
func (res *sizeResult) summarize(t *timings, x *ftsIndex, qs []query) error {
	everyQuery := func(int) bool { return true }
	res.Recall = latencyOf(t.all(0, everyQuery))
	res.ByKind, res.Answered = map[string]map[string]float64{}, map[string]int{}
	for si, name := range systemNames() {
		res.ByKind[name] = map[string]float64{}
		for _, kind := range queryKinds {
			l := latencyOf(t.all(si, func(qi int) bool { return qs[qi].Kind == kind }))
			if l.N > 0 {
				res.ByKind[name][kind] = l.P50
			}
		}
		for _, ok := range t.answered[si] {
			if ok {
				res.Answered[name]++
			}
		}
	}
	for qi, q := range qs {
		res.Slowest = append(res.Slowest, queryLatency{Query: q.Text, P50: latencyOf(t.samples[0][qi]).P50})
	}
	slices.SortStableFunc(res.Slowest, func(a, b queryLatency) int { return cmp.Compare(b.P50, a.P50) })
	res.Slowest = res.Slowest[:min(5, len(res.Slowest))]
	for i, s := range ftsSystems {
		r := ftsResult{Name: s.Name, BuildMS: ms(x.build[i]), Recall: latencyOf(t.all(i+1, everyQuery))}
		r.RatioP50 = res.Recall.P50 / r.Recall.P50
		r.RatioP99 = res.Recall.P99 / r.Recall.P99
		for qi, q := range qs {
			if x.exprs[i][qi] == "" {
				r.NoTerms++
			}
			if q.Want != "" {
				keys, err := x.search(i, qi)
				if err != nil {
					return err
				}
				if len(keys) > 0 && keys[0] == q.Want {
					r.NeedlesFirst++
				}
			}
		}
		res.FTS = append(res.FTS, r)
	}
	return nil
}

// loadEngine loads a new engine over the corpus and returns the time that
// took and the live heap it holds. The heap is read before and after, each
// time after a collection, so what is counted is what the engine keeps, not
// what loading churned through; engines already loaded are not counted.
func loadEngine(cor *corpus) (*engine.Engine, time.Duration, float64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := engine.New(engine.Config{GlobalDir: cor.global, ProjectDir: cor.project,
		Now: func() time.Time { return time.UnixMilli(rankNow) }, TuneGC: true})
	start := time.Now()
	if _, err := e.Load(); err != nil {
		return nil, 0, 0, err
	}
	load := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return e, load, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20), nil
}

// timings holds every timed query: [system][query] → one sample per round.
// System 0 is ocmem, then ftsSystems in order.
type timings struct {
	samples  [][][]time.Duration
	answered [][]bool // [system][query]: returned at least one memory
}

// all returns a system's samples over the queries for which keep is true.
func (t *timings) all(system int, keep func(qi int) bool) []time.Duration {
	var out []time.Duration
	for qi, ds := range t.samples[system] {
		if keep(qi) {
			out = append(out, ds...)
		}
	}
	return out
}

// interleave times every query on every system, one after the other, round
// after round, rotating which system goes first: a burst of noise on a
// shared machine then hits all of them alike, and none always runs just
// after another has evicted its data from the CPU caches. The first round is
// a warm-up and is not counted.
func interleave(e *engine.Engine, x *ftsIndex, qs []query, rounds int) (*timings, error) {
	n := 1 + len(ftsSystems)
	t := &timings{samples: make([][][]time.Duration, n), answered: make([][]bool, n)}
	for s := range n {
		t.samples[s] = make([][]time.Duration, len(qs))
		t.answered[s] = make([]bool, len(qs))
	}
	for round := range rounds + 1 {
		for qi, q := range qs {
			for k := range n {
				s := (k + round + qi) % n
				start := time.Now()
				var err error
				found := 0
				if s == 0 {
					var hits []engine.Hit
					hits, err = e.Recall(q.Text, engine.RecallOptions{Limit: 4})
					found = len(hits)
				} else {
					var keys []string
					keys, err = x.search(s-1, qi)
					found = len(keys)
				}
				d := time.Since(start)
				if err != nil {
					return nil, fmt.Errorf("query %q: %w", q.Text, err)
				}
				if round == 0 {
					t.answered[s][qi] = found > 0
				} else {
					t.samples[s][qi] = append(t.samples[s][qi], d)
				}
			}
		}
	}
	return t, nil
}

// measureReload edits one memory file at a time, spread over the corpus,
// the way `ocmem serve` sees it: a file event naming the file
// (InvalidateFile, which reads just that file again), and the next recall
// pays for the reload. The recall asks for a word only the edit
// introduced, so a reload that missed the change is caught, not timed.
// The files are restored afterwards: corpora are reused across runs.
func measureReload(e *engine.Engine, cor *corpus, runs int) (runStats, bool, error) {
	originals := map[string][]byte{}
	defer func() {
		for path, b := range originals {
			os.WriteFile(path, b, 0o644)
		}
		e.Invalidate()
	}()
	var ds []time.Duration
	fresh := true
	for i := range runs {
		n := (2*i + 1) * cor.size / (2 * runs)
		path, err := cor.memoryPath(n)
		if err != nil {
			return runStats{}, false, err
		}
		// Letters only: the tokenizer keeps it one rare word, which no other
		// memory (nor an earlier probe) shares.
		word := "reloadprobe" + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
		orig, err := rewriteSummary(path, "Edited by hand: "+word+" changed this summary.")
		if err != nil {
			return runStats{}, false, err
		}
		if _, ok := originals[path]; !ok {
			originals[path] = orig
		}
		e.InvalidateFile(filepath.Dir(filepath.Dir(path)), path)
		start := time.Now()
		hits, err := e.Recall(word, engine.RecallOptions{Limit: 4})
		ds = append(ds, time.Since(start))
		if err != nil {
			return runStats{}, false, err
		}
		if len(hits) == 0 || !strings.HasSuffix(hits[0].ID, fmt.Sprintf("/m%06d", n)) {
			logf("%d memories: reload %d did not see the edit of %s", cor.size, i, path)
			fresh = false
		}
	}
	return statsOf(ds), fresh, nil
}

// measureCLI runs `ocmem recall` as a fresh process: cold, with no cache on
// disk, then warm, with whatever cache the cold run left. Queries cycle over
// the needles, so the CLI's answers are checked too. The memory files are
// in the page cache either way: "cold" is about ocmem's cache, not the disk.
func measureCLI(res *sizeResult, bin string, cor *corpus, qs []query, runs int) error {
	var needles []int
	for i, q := range qs {
		if q.Want != "" {
			needles = append(needles, i)
		}
	}
	if len(needles) == 0 {
		return fmt.Errorf("no needles to ask the CLI for")
	}
	var cold, warm []time.Duration
	for i := range runs {
		q := qs[needles[i%len(needles)]]
		if err := cor.removeCaches(); err != nil {
			return err
		}
		for _, warmRun := range []bool{false, true} {
			r, err := runCLI(bin, cor, q.Text)
			if err != nil {
				return err
			}
			if warmRun {
				warm = append(warm, r.wall)
				res.CLIWarmRSSMB = max(res.CLIWarmRSSMB, r.rssMB)
			} else {
				cold = append(cold, r.wall)
				res.CLIColdRSSMB = max(res.CLIColdRSSMB, r.rssMB)
				res.CacheWritten = cor.hasCache()
			}
			for j := range res.Needles {
				// Once wrong, the answer shown stays the wrong one.
				if n := &res.Needles[j]; n.Query == q.Text && (n.CLI == "" || n.CLI == n.Want) {
					n.CLI = r.first
				}
			}
		}
	}
	res.CLICold, res.CLIWarm = statsOf(cold), statsOf(warm)
	return nil
}

type cliRun struct {
	wall  time.Duration
	rssMB float64
	first string // "scope:id" of the first result, "(none)" if none
}

func runCLI(bin string, cor *corpus, q string) (cliRun, error) {
	// The user's own OCMEM_* settings (options, roots, cache) must not
	// change what is measured.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCMEM_") {
			env = append(env, kv)
		}
	}
	env = append(env, "OCMEM_CACHE_DIR="+cor.cacheDir())
	stdout, wall, rss, err := runProbed(env, bin, "recall", "--json", "--limit", "4", "--now", strconv.FormatInt(rankNow, 10),
		"--global", cor.global, "--project", cor.project, q)
	if err != nil {
		return cliRun{}, err
	}
	r := cliRun{wall: wall, rssMB: float64(rss) / (1 << 20), first: "(none)"}
	var out struct {
		Results []struct{ ID, Scope string }
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return r, fmt.Errorf("ocmem recall --json: %w", err)
	}
	if len(out.Results) > 0 {
		r.first = out.Results[0].Scope + ":" + out.Results[0].ID
	}
	return r, nil
}

// measureServe runs `ocmem serve` as the OpenCode plugin does, with the load
// cache the CLI runs left: the stable tiers for a session (its first
// request: the process starts, loads and renders them), one message's
// injection and a recall per query. It returns the first request's time and
// the process's peak resident memory, read from /proc while it still runs
// (0 where there is no /proc): the probe's ru_maxrss would do, but serve
// needs its standard input.
func measureServe(bin string, cor *corpus, qs []query) (first time.Duration, rssMB float64, err error) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCMEM_") {
			env = append(env, kv)
		}
	}
	env = append(env, "OCMEM_CACHE_DIR="+cor.cacheDir(), "OCMEM_LOG="+filepath.Join(cor.dir, "serve.log"))
	cmd := exec.Command(bin, "serve", "--global", cor.global, "--project", cor.project)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		in.Close()
		if werr := cmd.Wait(); err == nil && werr != nil {
			err = fmt.Errorf("ocmem serve: %w", werr)
		}
	}()
	out := bufio.NewReader(outPipe)
	id := 0
	call := func(method string, params any) error {
		id++
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(req, '\n')); err != nil {
			return err
		}
		line, err := out.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("ocmem serve: %s: %w", method, err)
		}
		var resp struct {
			Error *struct{ Message string }
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.Error != nil {
			return fmt.Errorf("ocmem serve: %s: %v %v", method, err, resp.Error)
		}
		return nil
	}
	session := map[string]any{"sessionID": "ses_bench"}
	if err := call("system", session); err != nil {
		return 0, 0, err
	}
	first = time.Since(start)
	if err := call("message", map[string]any{"sessionID": "ses_bench", "messageID": "msg_1", "text": qs[0].Text}); err != nil {
		return 0, 0, err
	}
	for _, q := range qs {
		if err := call("recall", map[string]any{"sessionID": "ses_bench", "args": map[string]any{"query": q.Text, "limit": 4}}); err != nil {
			return 0, 0, err
		}
	}
	return first, peakRSSMB(cmd.Process.Pid), nil
}

// peakRSSMB reads a running process's peak resident memory (VmHWM), in MB;
// 0 where /proc does not have it.
func peakRSSMB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil {
				return float64(kb) / 1024
			}
		}
	}
	return 0
}

// keepState saves the .state.json of roots and returns a function that puts
// each back as it was (removing one that did not exist).
func keepState(roots ...string) (restore func()) {
	saved := map[string][]byte{}
	for _, r := range roots {
		p := filepath.Join(r, ".state.json")
		if b, err := os.ReadFile(p); err == nil {
			saved[p] = b
		} else {
			saved[p] = nil
		}
	}
	return func() {
		for p, b := range saved {
			if b == nil {
				os.Remove(p)
			} else {
				os.WriteFile(p, b, 0o644)
			}
		}
	}
}
