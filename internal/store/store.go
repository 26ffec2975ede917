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
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
)

// Scope names a root.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
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
	Memory  *memory.Memory
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
		// A memory.ParseError already says "line N: "; say it once.
		msg := strings.TrimPrefix(fmt.Sprint(p.Err), fmt.Sprintf("line %d: ", p.Line))
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, msg)
	}
	return fmt.Sprintf("%s: %v", p.Path, p.Err)
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
func (r Root) Load() ([]*File, []Problem, error) { return r.LoadReusing(nil) }

// Reuse returns a file loaded before, if it is still valid for a file of
// this size and modification time, or nil.
type Reuse func(rel string, size int64, mtime time.Time) *File

// LoadReusing is Load, taking unchanged files (same size and modification
// time as when reuse's source loaded them) from reuse instead of reading and
// parsing them again: a reload then costs one stat per file and a parse per
// changed file.
func (r Root) LoadReusing(reuse Reuse) ([]*File, []Problem, error) {
	if r.Dir == "" {
		return nil, nil, nil
	}
	info, err := os.Stat(r.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s root: %w", r.Scope, err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("%s root %s is not a directory", r.Scope, r.Dir)
	}
	var files []*File
	var problems []Problem
	problem := func(path, rel string, line int, err error) {
		problems = append(problems, Problem{Scope: r.Scope, Path: path, Rel: rel, Line: line, Err: err})
	}
	// WalkDir does not descend into a root that is itself a symlink (a
	// .memory linked to a dotfiles checkout), so walk its target and report
	// paths under r.Dir as given.
	walkRoot := r.Dir
	if real, err := filepath.EvalSymlinks(r.Dir); err == nil {
		walkRoot = real
	}
	err = filepath.WalkDir(walkRoot, func(path string, d fs.DirEntry, err error) error {
		rel, relErr := filepath.Rel(walkRoot, path)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		path = filepath.Join(r.Dir, filepath.FromSlash(rel))
		if err != nil {
			if rel == "." {
				return err
			}
			problem(path, rel, 0, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") { // .git, .state.json, .ocmem.lock, caches, temp files
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.HasSuffix(name, ".md") && name != IndexFile && rel != RootFile {
				// Walked like any folder, but a person looking for the
				// memory of that name should learn why there is none.
				problem(path, rel, 0, errors.New("a directory named like a memory file; its files, if any, are read as memories in a subfolder"))
			}
			return nil
		}
		if rel == RootFile {
			// ROOT.md is read by whoever uses it (a failure to read it is
			// reported there); its hard rules go into every prompt, so its
			// text is checked as a memory's is.
			if data, _, err := readRegular(path, MaxReadSize); err == nil {
				if err := memory.CheckText(data); err != nil {
					var pe *memory.ParseError
					errors.As(err, &pe)
					problem(path, rel, pe.Line, err)
				}
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !strings.HasSuffix(name, ".md") {
			// WalkDir never follows a symlinked directory. One inside the
			// root holds files that are loaded where they really are; one
			// leading outside would silently hide memories, so say so.
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				if err := pathsafe.Inside(r.Dir, path); err != nil {
					problem(path, rel, 0, fmt.Errorf("not followed: %v", err))
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".md") || name == IndexFile || !strings.Contains(rel, "/") {
			return nil // ROOT.md, README.md at the top, indexes, non-Markdown files
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if err := pathsafe.Inside(r.Dir, path); err != nil {
				problem(path, rel, 0, fmt.Errorf("not followed: %v", err))
				return nil
			}
		} else if !d.Type().IsRegular() {
			problem(path, rel, 0, notRegular(d.Type()))
			return nil
		}
		if err := pathsafe.Check(rel); err != nil {
			problem(path, rel, 0, err)
			return nil
		}
		if reuse != nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				if f := reuse(rel, info.Size(), info.ModTime()); f != nil {
					files = append(files, f)
					return nil
				}
			}
		}
		f, err := readFile(r.Scope, path, rel)
		if err != nil {
			var pe *memory.ParseError
			line := 0
			if errors.As(err, &pe) {
				line = pe.Line
			}
			problem(path, rel, line, err)
			return nil
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s root: %w", r.Scope, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	return files, problems, nil
}

// readFile reads, parses and validates one memory file. The size limit is
// checked before reading, and the text (memory.CheckText) before parsing.
func readFile(scope Scope, path, rel string) (*File, error) {
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
	return &File{Scope: scope, Path: path, Rel: rel, Size: info.Size(), ModTime: info.ModTime(), Memory: m}, nil
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
