// Package store owns the two memory roots on disk: finding them, loading
// every memory file in them, and writing safely. It is the only package that
// writes to a root.
//
//	r := store.Root{Scope: store.Project, Dir: "/repo/.memory"}
//	files, problems, err := r.Load()
//
// Writes are atomic (temp file in the same directory, fsync, rename, fsync of
// the directory) and serialized across processes by a lock on a sidecar file
// in the root (never on a file that is renamed over), so concurrent OpenCode
// sessions and CLI calls never lose a memory or tear an index.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
)

// Scope names a root; it is memory.Scope, under the name store's callers
// have always used.
type Scope = memory.Scope

const (
	Global  = memory.Global
	Project = memory.Project
)

// ParseScope accepts "global" or "project".
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case Global, Project:
		return Scope(s), nil
	}
	return "", fmt.Errorf("scope %q is not global or project", s)
}

// Root is one memory root. The zero Dir means the root is not configured.
type Root struct {
	Scope Scope
	Dir   string
	// Chosen says the user named this project root (a flag or
	// OCMEM_PROJECT), so it is written wherever it leads. A project root
	// ocmem found itself, a repository's .memory, is written only when it
	// is where it is expected to be (see CheckWritable): a cloned
	// repository can ship `.memory -> ..`. The global root is always
	// the user's own.
	Chosen bool
}

// Names of files in a root that are not memories.
const (
	RootFile      = "ROOT.md"
	IndexFile     = "index.md"
	StateFile     = ".state.json"
	LockFile      = ".ocmem.lock"
	GitignoreFile = ".gitignore"
)

// File is a memory file loaded from a root.
type File struct {
	Scope   Scope
	Path    string // absolute path on disk
	Rel     string // slash-separated path inside the root, e.g. "pitfalls/x.md"
	Size    int64
	ModTime time.Time
	// Stamp tells this version of the file from another of the same size
	// and modification time (stamp.go).
	Stamp  uint64
	Memory *memory.Memory
}

// Problem is a file the engine could not use. It is reported, and the file is
// left as it is.
type Problem struct {
	Scope Scope
	Path  string // absolute path
	Rel   string
	Line  int // 1-based, 0 when unknown
	Err   error
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason())
	}
	return fmt.Sprintf("%s: %v", p.Path, p.Err)
}

// Reason is what is wrong, without the line a report shows beside the
// path: a memory.ParseError already says "line N: ", and a report that
// prints path:N should not say it twice.
func (p Problem) Reason() string {
	msg := fmt.Sprint(p.Err)
	if p.Line > 0 {
		msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", p.Line))
	}
	return msg
}

// IDOf returns the id a memory file's path implies: its relative path
// without ".md".
func IDOf(rel string) string { return strings.TrimSuffix(rel, ".md") }

// Load reads every memory file of the root. A missing root yields nothing and
// no error. Files that cannot be read, parsed or validated become Problems;
// every other file is returned, sorted by Rel. A symlinked memory file is
// followed only when it resolves inside the root, and reported otherwise; a
// symlinked directory is never walked, and reported when it leads outside.
// The root itself may be a symlink.
// Files are read and parsed runtime.GOMAXPROCS(0) at a time; problems are
// sorted by Rel.
func (r Root) Load() ([]*File, []Problem, error) {
	if r.Dir == "" {
		return nil, nil, nil
	}
	entries, problems, err := r.Scan()
	if err != nil {
		return nil, nil, err
	}
	files, readProblems := r.ReadEntries(entries, false)
	problems = append(problems, readProblems...)
	files = slices.DeleteFunc(files, func(f *File) bool { return f == nil })
	if len(files) == 0 {
		files = nil // as for a missing root
	}
	if data, _, err := readRegular(r.path(RootFile), MaxReadSize); err == nil {
		if p, bad := r.RootMDProblem(data); bad {
			problems = append(problems, p)
		}
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Rel, b.Rel) })
	return files, problems, nil
}

// RootMDProblem checks ROOT.md's text as a memory's is checked: ROOT.md is
// read by whoever uses it (a failure to read it is reported there), but its
// hard rules go into every prompt. Scan does not list it: it is not a
// memory.
func (r Root) RootMDProblem(data []byte) (Problem, bool) {
	err := memory.CheckText(data)
	if err == nil {
		return Problem{}, false
	}
	line := 0
	var pe *memory.ParseError
	if errors.As(err, &pe) {
		line = pe.Line
	}
	return Problem{Scope: r.Scope, Path: r.path(RootFile), Rel: RootFile, Line: line, Err: err}, true
}

// ReadEntries reads, parses and validates files Scan listed, as Load would,
// runtime.GOMAXPROCS(0) at a time: files[i] is entries[i]'s file, or nil
// when it could not be used, and then one of problems says why. With
// fieldsOnly, each memory keeps only its fields (memory.Memory.Fields):
// a hundred thousand parsed YAML trees are most of a cold load's memory.
func (r Root) ReadEntries(entries []Entry, fieldsOnly bool) (files []*File, problems []Problem) {
	files = make([]*File, len(entries))
	errs := make([]error, len(entries))
	parallel(len(entries), func(i int) {
		files[i], errs[i] = readFile(r.Scope, r.path(entries[i].Rel), entries[i].Rel)
		if fieldsOnly && files[i] != nil {
			files[i].Memory = files[i].Memory.Fields()
		}
	})
	for i, err := range errs {
		if err == nil {
			continue
		}
		var pe *memory.ParseError
		line := 0
		if errors.As(err, &pe) {
			line = pe.Line
		}
		rel := entries[i].Rel
		problems = append(problems, Problem{Scope: r.Scope, Path: r.path(rel), Rel: rel, Line: line, Err: err})
	}
	return files, problems
}

// parallel calls fn(0) … fn(n-1) on up to runtime.GOMAXPROCS(0)
// goroutines, and returns when all have returned. Reading and parsing
// memory files is CPU-bound once they are cached: at 100,000 files on two
// cores (busy with other work too), a load that reads every file took
// 2.8 s instead of 4.3 s one file at a time.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// readFile reads, parses and validates one memory file. The size limit is
// checked before reading, and the text (memory.CheckText) before parsing.
func readFile(scope Scope, path, rel string) (*File, error) {
	// Stamped before the read: a change in between makes the stamp older
	// than the content, and the next load reads the file again.
	stamp := pathStamp(path)
	data, info, err := readRegular(path, memory.MaxFileSize)
	if err != nil {
		if info != nil && info.Mode().IsRegular() && info.Size() > memory.MaxFileSize {
			return nil, fmt.Errorf("file is %d bytes, over the %d-byte limit for a memory", info.Size(), memory.MaxFileSize)
		}
		return nil, err
	}
	if err := memory.CheckText(data); err != nil {
		return nil, err
	}
	m, err := memory.Parse(data)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(IDOf(rel)); err != nil {
		return nil, err
	}
	if !stampsFromStat {
		stamp = contentStamp(data)
	}
	return &File{Scope: scope, Path: path, Rel: rel, Size: info.Size(), ModTime: info.ModTime(), Stamp: stamp, Memory: m}, nil
}

// Path returns the path of a file inside the root, refusing anything that
// leaves it.
func (r Root) Path(rel string) (string, error) {
	if r.Dir == "" {
		return "", fmt.Errorf("no %s memory root is configured", r.Scope)
	}
	return pathsafe.Join(r.Dir, rel)
}

// ReadFile reads a file of the root by relative path (nil and no error
// when it does not exist). Only a regular file of at most MaxReadSize bytes
// is read: a named pipe, a device or a huge file is an error, never a hang.
func (r Root) ReadFile(rel string) ([]byte, error) {
	p, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	b, _, err := readRegular(p, MaxReadSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// ReadRootMD returns ROOT.md's bytes, or nil when there is none.
func (r Root) ReadRootMD() ([]byte, error) {
	if r.Dir == "" {
		return nil, nil
	}
	return r.ReadFile(RootFile)
}

// ReadRootMDAs is ReadRootMD for a caller that holds what ROOT.md most
// likely is (nil: nothing held): the file is compared with held as it is
// read, and held itself is returned when they are the same bytes.
func (r Root) ReadRootMDAs(held []byte) ([]byte, error) {
	if r.Dir == "" {
		return nil, nil
	}
	p, err := r.Path(RootFile)
	if err != nil {
		return nil, err
	}
	b, _, err := readRegularAs(p, MaxReadSize, held)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// LoadFile reads one memory file of the root as Load would, for a reload
// that knows which file changed. It refuses what Load would not load
// (paths outside the root, symlinks, non-memory names) with an error.
func (r Root) LoadFile(rel string) (*File, error) {
	if err := pathsafe.Check(rel); err != nil {
		return nil, err
	}
	name := path.Base(rel)
	if !strings.HasSuffix(name, ".md") || name == IndexFile || !strings.Contains(rel, "/") {
		return nil, fmt.Errorf("%s is not a memory file", rel)
	}
	p, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	if info, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return readFile(r.Scope, p, rel)
}
