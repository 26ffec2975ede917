package engine

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// compileRoot regenerates a root's index.md files and ROOT.md from its
// memory files on disk; skipped are the files that do not load, left out.
// The caller holds the root's lock.
func (e *Engine) compileRoot(r store.Root) (changed []string, skipped []store.Problem, err error) {
	files, skipped, err := r.Load()
	if err != nil {
		return nil, nil, err
	}
	mems := make([]*memory.Memory, len(files))
	for i, f := range files {
		mems[i] = f.Memory
	}
	cats := compile.Categories(e.opts.CategoriesOrDefault(), mems)
	for _, c := range cats {
		rel := c + "/" + store.IndexFile
		if err := checkCategory(c); err != nil {
			continue
		}
		ok, err := r.WriteFile(rel, compile.Index(c, mems))
		if err != nil {
			return changed, skipped, fmt.Errorf("write %s: %w", rel, err)
		}
		if ok {
			changed = append(changed, rel)
		}
	}
	// An index.md that compile wrote, left in a folder that no longer
	// holds memories and is not a configured category, would list
	// memories that are gone. Only a file carrying compile's marker line
	// is removed, and never a folder: a folder's own index.md and the
	// folder itself are not ocmem's to delete.
	entries, _ := os.ReadDir(r.Dir)
	for _, de := range entries {
		name := de.Name()
		if !de.IsDir() || strings.HasPrefix(name, ".") || slices.Contains(cats, name) || checkCategory(name) != nil {
			continue
		}
		rel := name + "/" + store.IndexFile
		data, err := r.ReadFile(rel)
		if err != nil || data == nil || !compile.Generated(data) {
			continue
		}
		if err := r.Remove(rel); err != nil {
			return changed, skipped, fmt.Errorf("remove stale %s: %w", rel, err)
		}
		changed = append(changed, rel)
	}
	old, err := r.ReadRootMD()
	if err != nil {
		return changed, skipped, err
	}
	root, err := compile.Root(old, cats, mems)
	if err != nil {
		return changed, skipped, err
	}
	ok, err := r.WriteFile(store.RootFile, root)
	if err != nil {
		return changed, skipped, fmt.Errorf("write %s: %w", store.RootFile, err)
	}
	if ok {
		changed = append(changed, store.RootFile)
	}
	// Temp files a killed writer left behind (store.CleanTemp).
	r.CleanTemp(e.now(), store.TempMaxAge)
	return changed, skipped, nil
}

// Compile regenerates the compiled files of every configured root that
// exists, and reports what changed, as "scope:path".
func (e *Engine) Compile() ([]string, error) {
	changed, _, err := e.compile(e.roots())
	return changed, err
}

// CompileSkipping is Compile, also returning the memory files that do not
// load (path, line, reason): they are left out of the compiled files, and
// a person who just edited one by hand should hear of it.
func (e *Engine) CompileSkipping() (changed []string, skipped []store.Problem, err error) {
	return e.compile(e.roots())
}

func (e *Engine) compile(roots []store.Root) (out []string, skipped []store.Problem, err error) {
	defer e.Invalidate()
	for _, r := range roots {
		if !dirExists(r.Dir) {
			continue
		}
		unlock, err := r.Lock()
		if err != nil {
			return out, skipped, err
		}
		changed, sk, err := e.compileRoot(r)
		unlock()
		for _, c := range changed {
			out = append(out, string(r.Scope)+":"+c)
		}
		skipped = append(skipped, sk...)
		if err != nil {
			return out, skipped, fmt.Errorf("%s root: %w", r.Scope, err)
		}
	}
	return out, skipped, nil
}
