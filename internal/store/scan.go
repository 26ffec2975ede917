package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/pathsafe"
)

// Entry is one candidate memory file found by Scan, with what lstat said of
// it when its directory was listed.
type Entry struct {
	Rel     string      // slash-separated path inside the root, e.g. "pitfalls/x.md"
	Size    int64       // lstat's: for a symlink, the length of its target path
	ModTime time.Time   // lstat's: for a symlink, the link's own
	Mode    fs.FileMode // lstat's, as fs.FileInfo.Mode: regular, or a symlink resolving inside the root
	// Stamp is lstat's stamp (stamp.go) where the platform has one, else
	// 0: Root.Stamp computes it then.
	Stamp uint64
}

// Scan lists every file of the root that Load would read as a memory file,
// sorted by Rel, without reading any: the files named "*.md" in the
// folders of the root (not index.md, nor the files at the top, such as
// ROOT.md and README.md), skipping every name that starts with a dot.
// Folders nest. A symlinked file is listed only when it resolves inside the
// root; a symlinked folder is never walked. The root itself may be a
// symlink; Rel is relative to Dir either way.
//
// Problems are what can be told without reading a file, sorted by Rel: a
// symlink (to a file or a folder) leading outside the root or nowhere, a
// "*.md" that is neither a regular file nor a symlink, a path that pathsafe.Check refuses, a
// folder named like a memory file (it is walked), and a folder that cannot
// be listed. A missing root yields nothing; a root that cannot be listed is
// an error.
//
// Scan lists directories in parallel, runtime.GOMAXPROCS(0) at a time, and
// on Unix stats each name relative to its open directory (fstatat). Over
// 100,000 files on two cores busy with other work it took 143 ms, and
// 252 ms of CPU time, where filepath.WalkDir with an lstat per file took
// 447 ms and 511 ms (BenchmarkScan, medians of 6).
func (r Root) Scan() ([]Entry, []Problem, error) { return r.ScanWatching(nil) }

// ScanWatching is Scan, calling watch (when not nil) with each folder it
// lists, the root first, as a path under Dir, before listing it: a
// watcher told of a folder then sees every change the listing misses, and
// needs no walk of its own. Folders Scan skips (names starting with a
// dot, links) are not named. watch is called from several goroutines at
// once.
func (r Root) ScanWatching(watch func(dir string)) ([]Entry, []Problem, error) {
	l, err := r.List(watch)
	return l.Entries, l.Problems, err
}

// Listing is what List found in a root.
type Listing struct {
	Entries  []Entry   // as Scan returns them
	Problems []Problem // as Scan returns them
	// Temps are the temp files of writeAtomic (TempName) in the folders
	// listed, slash-separated paths inside the root, sorted; no file was
	// statted to find them. A write removes the stale ones among them
	// (a killed writer's) without reading the folders again.
	Temps []string
}

// List is ScanWatching, also naming the temp files it saw (Listing.Temps).
func (r Root) List(watch func(dir string)) (Listing, error) {
	if r.Dir == "" {
		return Listing{}, nil
	}
	info, err := os.Stat(r.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Listing{}, nil
	}
	if err != nil {
		return Listing{}, fmt.Errorf("%s root: %w", r.Scope, err)
	}
	if !info.IsDir() {
		return Listing{}, fmt.Errorf("%s root %s is not a directory", r.Scope, r.Dir)
	}
	s := &scanner{root: r, walkRoot: r.Dir, watch: watch}
	// A root that is a symlink (a .memory linked to a dotfiles checkout) is
	// listed at its target; paths are still reported under r.Dir.
	if real, err := filepath.EvalSymlinks(r.Dir); err == nil {
		s.walkRoot = real
	}
	top := &scanDir{}
	s.run(top)
	if top.err != nil {
		return Listing{}, fmt.Errorf("%s root: %w", r.Scope, top.err)
	}
	var l Listing
	if s.files.Load() > 0 {
		l.Entries = make([]Entry, 0, s.files.Load())
	}
	top.collect(&l.Entries, &l.Problems, &l.Temps)
	// Problems come in walk order (a folder's before its own), which is
	// not quite Rel order; there are few.
	slices.SortStableFunc(l.Problems, func(a, b Problem) int { return strings.Compare(a.Rel, b.Rel) })
	slices.Sort(l.Temps)
	return l, nil
}

// scanChunkSize is how many names of one directory a worker stats in one
// job. A root is a handful of category folders of thousands of files each;
// splitting them keeps every worker busy to the end.
const scanChunkSize = 1024

// scanner is one Scan: a stack of jobs shared by the workers.
type scanner struct {
	root     Root
	walkRoot string // the directory actually listed: Dir with symlinks resolved
	watch    func(dir string)
	files    atomic.Int64

	mu      sync.Mutex
	wake    sync.Cond
	jobs    []scanJob
	running int // jobs popped and not finished
}

// scanJob lists dir (chunk < 0) or stats one chunk of its names.
type scanJob struct {
	dir   *scanDir
	chunk int
}

// scanDir is one directory of the walk. Its names are sorted; each chunk
// of them holds what its names turned out to be, in name order.
type scanDir struct {
	rel      string // "" for the root
	h        dirHandle
	names    []string
	chunks   []scanChunk
	left     atomic.Int32 // chunks not yet statted; the last one closes h
	safe     bool         // pathsafe.Check accepts rel
	err      error        // the directory could not be listed
	problems []Problem    // its own: err, as a Problem
}

type scanChunk struct {
	entries  []Entry
	subdirs  []*scanDir
	problems []Problem
	temps    []string // Listing.Temps
}

// run lists top and everything under it with GOMAXPROCS workers, the
// calling goroutine being one. The last job was not necessarily started
// last, so a worker stops only when no job is queued or running.
func (s *scanner) run(top *scanDir) {
	s.wake.L = &s.mu
	s.jobs = append(s.jobs, scanJob{dir: top, chunk: -1})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Go(s.work)
	}
	s.work()
	wg.Wait()
}

func (s *scanner) work() {
	s.mu.Lock()
	for {
		for len(s.jobs) == 0 && s.running > 0 {
			s.wake.Wait()
		}
		if len(s.jobs) == 0 {
			s.mu.Unlock()
			return
		}
		// Last in, first out: a directory's chunks are statted before
		// others are opened, which bounds the descriptors held open.
		j := s.jobs[len(s.jobs)-1]
		s.jobs = s.jobs[:len(s.jobs)-1]
		s.running++
		s.mu.Unlock()
		if j.chunk < 0 {
			s.list(j.dir)
		} else {
			s.stat(j.dir, j.chunk)
		}
		s.mu.Lock()
		s.running--
		if s.running == 0 && len(s.jobs) == 0 {
			s.wake.Broadcast()
		}
	}
}

// push queues jobs; called by a worker while it runs a job.
func (s *scanner) push(jobs ...scanJob) {
	s.mu.Lock()
	s.jobs = append(s.jobs, jobs...)
	s.mu.Unlock()
	if len(jobs) == 1 {
		s.wake.Signal()
	} else {
		s.wake.Broadcast()
	}
}

// list opens and lists d, and queues the stat of its names.
func (s *scanner) list(d *scanDir) {
	if s.watch != nil {
		s.watch(s.path(d.rel))
	}
	h, names, err := openDir(s.walkPath(d.rel), d.rel == "")
	if err != nil {
		d.err = err
		if d.rel != "" {
			d.problems = append(d.problems, s.problem(d.rel, err))
		}
		return
	}
	n := (len(names) + scanChunkSize - 1) / scanChunkSize
	if n == 0 {
		h.close()
		return
	}
	d.h, d.names = h, names
	d.safe = d.rel != "" && pathsafe.Check(d.rel) == nil
	d.chunks = make([]scanChunk, n)
	d.left.Store(int32(n))
	jobs := make([]scanJob, n)
	for i := range jobs {
		jobs[i] = scanJob{dir: d, chunk: n - 1 - i} // popped in order
	}
	s.push(jobs...)
}

// stat decides what each name of one chunk of d is, as Load always
// has: see Scan.
func (s *scanner) stat(d *scanDir, chunk int) {
	c := &d.chunks[chunk]
	lo := chunk * scanChunkSize
	hi := min(lo+scanChunkSize, len(d.names))
	c.entries = make([]Entry, 0, hi-lo)
	for i := lo; i < hi; i++ {
		name := d.names[i]
		rel := name
		if d.rel != "" {
			rel = d.rel + "/" + name
		}
		if strings.HasPrefix(name, ".") { // .git, .state.json, .ocmem.lock, caches, temp files
			if TempName.MatchString(name) {
				c.temps = append(c.temps, rel)
			}
			continue
		}
		st, err := d.h.lstat(i, name)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // else removed since listed
				c.problems = append(c.problems, s.problem(rel, err))
			}
			continue
		}
		isMD := strings.HasSuffix(name, ".md")
		switch {
		case st.mode.IsDir():
			if isMD && name != IndexFile && rel != RootFile {
				// Walked like any folder, but a person looking for the
				// memory of that name should learn why there is none.
				c.problems = append(c.problems, s.problem(rel, errors.New("a directory named like a memory file; its files, if any, are read as memories in a subfolder")))
			}
			sub := &scanDir{rel: rel}
			c.subdirs = append(c.subdirs, sub)
			s.push(scanJob{dir: sub, chunk: -1})
			continue
		case rel == RootFile:
			continue // read, and its text checked, by Load
		case st.mode&fs.ModeSymlink != 0 && !isMD:
			// A symlinked directory is never walked. One inside the root
			// holds files that are loaded where they really are; one
			// leading outside would silently hide memories, so say so.
			p := s.path(rel)
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				if err := pathsafe.Inside(s.root.Dir, p); err != nil {
					c.problems = append(c.problems, s.problem(rel, fmt.Errorf("not followed: %v", err)))
				}
			}
			continue
		case !isMD || name == IndexFile || d.rel == "":
			continue // ROOT.md, README.md at the top, indexes, non-Markdown files
		case st.mode&fs.ModeSymlink != 0:
			if err := pathsafe.Inside(s.root.Dir, s.path(rel)); err != nil {
				c.problems = append(c.problems, s.problem(rel, fmt.Errorf("not followed: %v", err)))
				continue
			}
		case !st.mode.IsRegular():
			c.problems = append(c.problems, s.problem(rel, notRegular(st.mode)))
			continue
		}
		if !d.safe || !plainName(name, len(rel)) {
			if err := pathsafe.Check(rel); err != nil {
				c.problems = append(c.problems, s.problem(rel, err))
				continue
			}
		}
		c.entries = append(c.entries, Entry{Rel: rel, Size: st.size, ModTime: st.mtime, Mode: st.mode, Stamp: st.stamp})
	}
	s.files.Add(int64(len(c.entries)))
	if d.left.Add(-1) == 0 {
		d.h.close()
		d.names = nil
	}
}

// collect appends d's entries and those of its subdirectories, in Rel
// order, and their problems in walk order. Names are sorted within each
// directory, but a subdirectory's files sort as its name plus "/": folder
// "a" sorts before "a-x" and "a.md", but "a-x/d.md" < "a.md/e.md" < "a/c.md"
// ("-" < "." < "/"), and "a/b.md" < "a/b/c.md" < "a/b0.md".
func (d *scanDir) collect(entries *[]Entry, problems *[]Problem, temps *[]string) {
	*problems = append(*problems, d.problems...)
	var subdirs []*scanDir
	for i := range d.chunks {
		*problems = append(*problems, d.chunks[i].problems...)
		*temps = append(*temps, d.chunks[i].temps...)
		subdirs = append(subdirs, d.chunks[i].subdirs...)
	}
	slices.SortFunc(subdirs, func(a, b *scanDir) int { return strings.Compare(a.rel+"/", b.rel+"/") })
	for i := range d.chunks {
		for _, e := range d.chunks[i].entries {
			for len(subdirs) > 0 && dirBefore(subdirs[0].rel, e.Rel) {
				subdirs[0].collect(entries, problems, temps)
				subdirs = subdirs[1:]
			}
			*entries = append(*entries, e)
		}
	}
	for _, sub := range subdirs {
		sub.collect(entries, problems, temps)
	}
}

// dirBefore reports whether the files of directory dir sort before file,
// that is whether dir+"/" < file.
func dirBefore(dir, file string) bool {
	if len(file) > len(dir) && file[:len(dir)] == dir {
		c := file[len(dir)]
		return c > '/' || (c == '/' && len(file) > len(dir)+1)
	}
	return dir < file
}

// plainName reports whether a memory file name of letters, digits, "-"
// and "_" before ".md", such as almost every name is, leaves a path of
// relLen bytes that pathsafe.Check accepts whenever it accepts its folder.
// It saves Check's three allocations a name: 13% of Scan's CPU time at
// 100,000 files (measured: 250 ms instead of 287 ms). false means "ask
// Check". TestPlainName and FuzzPlainName hold it to Check.
func plainName(name string, relLen int) bool {
	base, ok := strings.CutSuffix(name, ".md")
	// Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9, whatever follows.
	if !ok || len(base) == 3 || len(base) == 4 || base == "" || relLen > pathsafe.MaxLen {
		return false
	}
	for i := 0; i < len(base); i++ {
		switch c := base[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// walkPath is where rel is listed: under the resolved root.
func (s *scanner) walkPath(rel string) string {
	return filepath.Join(s.walkRoot, filepath.FromSlash(rel))
}

// path is where rel is reported: under Dir as given.
func (s *scanner) path(rel string) string { return s.root.path(rel) }

func (s *scanner) problem(rel string, err error) Problem {
	return Problem{Scope: s.root.Scope, Path: s.path(rel), Rel: rel, Err: err}
}

// path joins a relative path found by Scan to Dir.
func (r Root) path(rel string) string { return filepath.Join(r.Dir, filepath.FromSlash(rel)) }

// lstatResult is what a platform's dirHandle.lstat reports of a name.
type lstatResult struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	stamp uint64
}
