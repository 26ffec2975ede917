// Package engine is the one API every edge of ocmem calls (the CLI, the
// OpenCode plugin's serve process, the MCP server): Recall, Remember, Forget,
// Inspect, Compile and Inject over the two memory roots.
//
//	e := engine.New(engine.Config{GlobalDir: g, ProjectDir: p})
//	hits, err := e.Recall("部署前要做什么", engine.RecallOptions{Limit: 4})
//
// An Engine caches what it loaded (files, the inverted index) until
// Invalidate is called or it writes itself; the serve process invalidates on
// file-system events, the CLI loads once per command.
package engine

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
)

// Config locates the roots. An empty dir means that root is not used.
type Config struct {
	GlobalDir  string
	ProjectDir string
	Options    Options
	// Now returns the current time; nil means time.Now. Tests fix it.
	Now func() time.Time
	// ProjectTrusted reports whether the user trusts the project root's
	// hard rules (internal/trust); until then they are shown only as the
	// repository's proposals (see renderRules). nil trusts them: a library
	// caller chose its roots itself. The CLI, serve and MCP pass the user's
	// trust list.
	ProjectTrusted func() bool
}

// Engine serves both roots. It is safe for concurrent use.
type Engine struct {
	global, project store.Root
	opts            Options
	now             func() time.Time
	trusted         func() bool

	mu   sync.Mutex
	snap *Snapshot
	// last is the previous snapshot, kept after Invalidate so a reload
	// reuses the files that did not change.
	last *Snapshot
	// changed lists the files reported changed since last (InvalidateFile),
	// by root; walk says a full reload (every file stat'ed) is needed.
	changed map[store.Scope]map[string]bool
	walk    bool
}

// New returns an engine over the configured roots; nothing is read yet.
func New(c Config) *Engine {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Engine{
		global:  store.Root{Scope: store.Global, Dir: c.GlobalDir},
		project: store.Root{Scope: store.Project, Dir: c.ProjectDir},
		opts:    c.Options,
		now:     now,
		trusted: c.ProjectTrusted,
	}
}

// Options returns the engine's options.
func (e *Engine) Options() Options { return e.opts }

// Root returns the root of a scope.
func (e *Engine) Root(s store.Scope) store.Root {
	if s == store.Global {
		return e.global
	}
	return e.project
}

// roots lists the configured roots, global first: the order hard rules are
// shown in.
func (e *Engine) roots() []store.Root {
	var rs []store.Root
	for _, r := range []store.Root{e.global, e.project} {
		if r.Dir != "" {
			rs = append(rs, r)
		}
	}
	return rs
}

// Snapshot is everything loaded from both roots at one moment.
type Snapshot struct {
	Files    []*store.File // global files, then project files, each sorted by path
	Problems []store.Problem
	RootMD   map[store.Scope][]byte
	Corpus   *rank.Corpus   // the inverted index and each file's ranking metadata
	byKey    map[string]int // "scope:id" → position in Files
	// Patched is set when the snapshot was made from the previous one by
	// reading only the files reported changed (InvalidateFile).
	Patched bool
	// reuse holds, per root, each file with its analyzed terms, for the
	// next load.
	reuse map[store.Scope]map[string]*cachedFile

	stableOnce sync.Once
	stable     [2]string // rules and outline, computed once per snapshot
}

// Lookup returns the file of a memory, or nil.
func (s *Snapshot) Lookup(scope store.Scope, id string) *store.File {
	if i, ok := s.byKey[string(scope)+":"+id]; ok {
		return s.Files[i]
	}
	return nil
}

// Invalidate drops the cached snapshot; the next call reloads.
func (e *Engine) Invalidate() {
	e.mu.Lock()
	if e.snap != nil {
		e.last = e.snap
	}
	e.snap = nil
	e.walk = true
	e.mu.Unlock()
}

// InvalidateFile drops the cached snapshot because one file of a root
// changed (a file-system event), so that the next load can read just that
// file. A path that is not a memory file (index.md, ROOT.md, a folder, a
// temporary file) falls back to Invalidate, except the compiled index.md
// files, which the engine does not read.
func (e *Engine) InvalidateFile(root, path string) {
	var scope store.Scope
	for _, r := range e.roots() {
		if r.Dir == root {
			scope = r.Scope
		}
	}
	rel, err := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	if scope == "" || err != nil {
		e.Invalidate()
		return
	}
	if strings.HasSuffix(rel, "/"+store.IndexFile) && strings.Count(rel, "/") == 1 {
		return
	}
	if !strings.HasSuffix(rel, ".md") || strings.Count(rel, "/") != 1 || strings.Contains(rel, "/.") {
		e.Invalidate()
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		e.last = e.snap
	}
	e.snap = nil
	if e.changed == nil {
		e.changed = map[store.Scope]map[string]bool{}
	}
	if e.changed[scope] == nil {
		e.changed[scope] = map[string]bool{}
	}
	e.changed[scope][rel] = true
}

// Load returns the current snapshot, loading it if needed.
func (e *Engine) Load() (*Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		return e.snap, nil
	}
	var s *Snapshot
	if e.last != nil && !e.walk && len(e.changed) > 0 {
		s = e.reloadChanged(e.last, e.changed)
	}
	if s == nil {
		var err error
		if s, err = e.load(e.last, true); err != nil {
			return nil, err
		}
	}
	e.snap, e.last, e.changed, e.walk = s, nil, nil, false
	return s, nil
}

// maxPatched bounds the files a reload patches into the previous index;
// past it, rebuilding is as cheap and simpler.
const maxPatched = 64

// reloadChanged builds a snapshot from prev in which only the files in
// changed are read again, patching the index and the corpus instead of
// rebuilding them. It handles edits of existing memory files that still
// load; anything else (a file added, removed, broken, or too many files)
// returns nil, and the caller does a full reload.
func (e *Engine) reloadChanged(prev *Snapshot, changed map[store.Scope]map[string]bool) *Snapshot {
	count := 0
	for _, rels := range changed {
		count += len(rels)
	}
	if count > maxPatched {
		return nil
	}
	pos := make(map[*store.File]int, count)
	for i, f := range prev.Files {
		if changed[f.Scope][f.Rel] {
			pos[f] = i
		}
	}
	if len(pos) != count {
		return nil // a new file, or one that did not load before
	}
	s := &Snapshot{
		Files: slices.Clone(prev.Files), Problems: prev.Problems, RootMD: prev.RootMD,
		byKey: prev.byKey, reuse: map[store.Scope]map[string]*cachedFile{}, Patched: true,
	}
	for sc, m := range prev.reuse {
		s.reuse[sc] = m
	}
	ix := prev.Corpus.Index()
	metas := map[int]rank.Meta{}
	for old, i := range pos {
		f, err := e.Root(old.Scope).LoadFile(old.Rel)
		if err != nil || f.Memory.ID != old.Memory.ID {
			return nil // removed, broken, or renamed in place: reload fully
		}
		a := index.Analyze(docOf(f.Memory))
		ix = ix.Replace(i, prev.reuse[old.Scope][old.Rel].analyzed, a)
		s.Files[i] = f
		metas[i] = metaOf(f, prev.Corpus.Meta(i).Hits)
		if len(metas) == 1 {
			for sc, m := range s.reuse {
				s.reuse[sc] = maps.Clone(m)
			}
		}
		s.reuse[f.Scope][f.Rel] = &cachedFile{file: f, analyzed: a}
	}
	s.Corpus = prev.Corpus.Replace(ix, metas, func() []rank.Meta {
		all := make([]rank.Meta, len(s.Files))
		for i, f := range s.Files {
			all[i] = metaOf(f, prev.Corpus.Meta(i).Hits)
		}
		return all
	})
	return s
}

// loadFresh reads and parses every file, trusting no cache: for Inspect,
// which must see each file as it is, with line numbers for its reports.
func (e *Engine) loadFresh() (*Snapshot, error) {
	s, err := e.load(nil, false)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.snap, e.last = s, nil
	e.mu.Unlock()
	return s, nil
}

// load reads both roots. With useCache, files unchanged since prev (or
// since the on-disk load cache, when there is no prev) are reused with their
// analyzed terms; only changed files are read, parsed and tokenized.
func (e *Engine) load(prev *Snapshot, useCache bool) (*Snapshot, error) {
	s := &Snapshot{RootMD: map[store.Scope][]byte{}, byKey: map[string]int{}, reuse: map[store.Scope]map[string]*cachedFile{}}
	var errs []error
	hits := map[string]int{}
	var analyzed []index.Analyzed
	for _, r := range e.roots() {
		var old map[string]*cachedFile
		switch {
		case !useCache:
		case prev != nil:
			old = prev.reuse[r.Scope]
		default:
			old = readCache(r)
		}
		used := map[string]*cachedFile{}
		var reuse store.Reuse
		if old != nil {
			reuse = func(rel string, size int64, mtime time.Time) *store.File {
				if cf := old[rel]; cf != nil && cf.file.Size == size && cf.file.ModTime.Equal(mtime) {
					used[rel] = cf
					return cf.file
				}
				return nil
			}
		}
		files, problems, err := r.LoadReusing(reuse)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		now := make(map[string]*cachedFile, len(files))
		rootAnalyzed := make([]index.Analyzed, len(files))
		for i, f := range files {
			if cf := used[f.Rel]; cf != nil && cf.file == f {
				rootAnalyzed[i] = cf.analyzed
			} else {
				rootAnalyzed[i] = index.Analyze(docOf(f.Memory))
			}
			now[f.Rel] = &cachedFile{file: f, analyzed: rootAnalyzed[i]}
		}
		s.reuse[r.Scope] = now
		if useCache && prev == nil && (len(used) != len(files) || len(old) != len(files)) {
			writeCache(r, files, rootAnalyzed)
		}
		analyzed = append(analyzed, rootAnalyzed...)
		s.Files = append(s.Files, files...)
		s.Problems = append(s.Problems, problems...)
		md, err := r.ReadRootMD()
		if err != nil {
			s.Problems = append(s.Problems, store.Problem{Scope: r.Scope, Path: r.Dir + "/" + store.RootFile, Rel: store.RootFile, Err: err})
		}
		s.RootMD[r.Scope] = md
		for id, n := range r.ReadState().Hits {
			hits[string(r.Scope)+":"+id] = n
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	metas := make([]rank.Meta, len(s.Files))
	for i, f := range s.Files {
		m := f.Memory
		k := string(f.Scope) + ":" + m.ID
		s.byKey[k] = i
		metas[i] = metaOf(f, hits[k])
	}
	s.Corpus = rank.NewCorpus(index.BuildAnalyzed(analyzed), metas)
	return s, nil
}

// metaOf is what the ranker knows of a memory file besides its text.
func metaOf(f *store.File, hits int) rank.Meta {
	m := f.Memory
	scope := rank.Project
	if f.Scope == store.Global {
		scope = rank.Global
	}
	return rank.Meta{
		ID: m.ID, Scope: scope, Updated: m.Updated, Pinned: m.Pinned,
		Superseded: m.SupersededBy != "", Supersedes: m.Supersedes,
		LoadWhen: m.LoadWhen, Hits: hits,
	}
}

// docOf is the indexed text of a memory, by field.
func docOf(m *memory.Memory) index.Doc {
	return index.Doc{Fields: [index.NumFields]string{
		index.Summary:   m.Summary,
		index.Highlight: m.Highlight,
		index.LoadWhen:  joinTriggers(m.LoadWhen),
		index.Body:      m.Body,
	}}
}

// joinTriggers separates triggers so that no CJK bigram spans two of them.
func joinTriggers(ts []string) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += " ; "
		}
		out += t
	}
	return out
}

// compileRoot regenerates a root's index.md files and ROOT.md from its
// memory files on disk. The caller holds the root's lock.
func (e *Engine) compileRoot(r store.Root) (changed []string, err error) {
	files, _, err := r.Load()
	if err != nil {
		return nil, err
	}
	mems := make([]*memory.Memory, len(files))
	for i, f := range files {
		mems[i] = f.Memory
	}
	cats := compile.Categories(e.opts.categories(), mems)
	for _, c := range cats {
		rel := c + "/" + store.IndexFile
		if err := checkCategory(c); err != nil {
			continue
		}
		ok, err := r.WriteFile(rel, compile.Index(c, mems))
		if err != nil {
			return changed, fmt.Errorf("write %s: %w", rel, err)
		}
		if ok {
			changed = append(changed, rel)
		}
	}
	// An index.md left in a folder that no longer holds memories, and is
	// not a configured category, would list memories that are gone.
	entries, _ := os.ReadDir(r.Dir)
	for _, de := range entries {
		name := de.Name()
		if !de.IsDir() || strings.HasPrefix(name, ".") || slices.Contains(cats, name) || checkCategory(name) != nil {
			continue
		}
		rel := name + "/" + store.IndexFile
		if !r.Exists(rel) {
			continue
		}
		if err := r.Remove(rel); err != nil {
			return changed, fmt.Errorf("remove stale %s: %w", rel, err)
		}
		changed = append(changed, rel)
		if p, err := r.Path(name); err == nil {
			os.Remove(p) // only if now empty
		}
	}
	old, err := r.ReadRootMD()
	if err != nil {
		return changed, err
	}
	root, err := compile.Root(old, cats, mems)
	if err != nil {
		return changed, err
	}
	ok, err := r.WriteFile(store.RootFile, root)
	if err != nil {
		return changed, fmt.Errorf("write %s: %w", store.RootFile, err)
	}
	if ok {
		changed = append(changed, store.RootFile)
	}
	return changed, nil
}

// Compile regenerates the compiled files of every configured root that
// exists, and reports what changed, as "scope:path".
func (e *Engine) Compile() ([]string, error) {
	defer e.Invalidate()
	var out []string
	for _, r := range e.roots() {
		if !dirExists(r.Dir) {
			continue
		}
		unlock, err := r.Lock()
		if err != nil {
			return out, err
		}
		changed, err := e.compileRoot(r)
		unlock()
		for _, c := range changed {
			out = append(out, string(r.Scope)+":"+c)
		}
		if err != nil {
			return out, fmt.Errorf("%s root: %w", r.Scope, err)
		}
	}
	return out, nil
}
