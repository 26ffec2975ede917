// Package trust keeps the list of projects whose hard rules the user has
// accepted. A project's .memory/ is written by whoever commits to the
// repository; its rules go into the system prompt as rules the model must
// follow only once the user trusts that project.
//
//	l := trust.List{Path: p}                  // p from trust.DefaultPath()
//	ok, _ := l.Trusted(trust.ProjectKey(dir)) // dir: the project's .memory
//
// The list lives outside every repository (<OpenCode config dir>/ocmem/
// trusted.json), so no repository can trust itself. It is keyed by the
// canonical project root: the main checkout, with symlinks resolved, the
// same for every worktree. Trust is per path, as editors' workspace trust
// is: rules that arrive later with a pull into a trusted project apply too.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ocmem/ocmem/internal/store"
)

// FileName is the list's file name in its directory.
const FileName = "trusted.json"

// DefaultPath returns where the list lives: $OCMEM_TRUST_FILE, else
// <OpenCode config dir>/ocmem/trusted.json.
func DefaultPath() (string, error) {
	if p := os.Getenv("OCMEM_TRUST_FILE"); p != "" {
		return filepath.Abs(p)
	}
	cfg, err := store.OpenCodeConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "ocmem", FileName), nil
}

// ProjectKey returns the key of a project memory root: the directory that
// holds it when it is a ".memory" folder (the canonical project root), else
// the memory root itself (one configured elsewhere with --project), made
// absolute with symlinks resolved as far as the path exists.
func ProjectKey(projectMemoryDir string) string {
	d, err := filepath.Abs(projectMemoryDir)
	if err != nil {
		d = filepath.Clean(projectMemoryDir)
	}
	if filepath.Base(d) == ".memory" {
		d = filepath.Dir(d)
	}
	return resolve(d)
}

// resolve resolves the symlinks of the longest existing prefix of p.
func resolve(p string) string {
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Entry is one trusted project.
type Entry struct {
	Root    string    `json:"root"`
	Trusted time.Time `json:"trusted"`
}

// file is trusted.json.
type file struct {
	Version  int                  `json:"version"`
	Projects map[string]fileEntry `json:"projects"`
}

type fileEntry struct {
	Trusted time.Time `json:"trusted"`
}

const version = 1

// maxFileSize bounds trusted.json: an entry is about 100 bytes.
const maxFileSize = 4 << 20

// List is the trust list at Path. The zero Path trusts nothing.
type List struct {
	Path string
}

// ErrCorrupt is returned when trusted.json cannot be read as a trust list.
// Nothing is trusted then, and the file is not overwritten.
var ErrCorrupt = errors.New("the trust list is not valid JSON of ocmem's shape; fix or delete it")

func (l List) read() (*file, error) {
	f := &file{Version: version, Projects: map[string]fileEntry{}}
	if l.Path == "" {
		return f, nil
	}
	info, err := os.Stat(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: %w", l.Path, ErrCorrupt)
	}
	b, err := os.ReadFile(l.Path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, f); err != nil || f.Version != version {
		return nil, fmt.Errorf("%s: %w", l.Path, ErrCorrupt)
	}
	if f.Projects == nil {
		f.Projects = map[string]fileEntry{}
	}
	return f, nil
}

// lookup finds a key, ignoring case where the file system usually does.
func (f *file) lookup(key string) (string, bool) {
	if _, ok := f.Projects[key]; ok {
		return key, true
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		for k := range f.Projects {
			if strings.EqualFold(k, key) {
				return k, true
			}
		}
	}
	return "", false
}

// Trusted reports whether a project (a key from ProjectKey) is trusted, and
// since when. An unreadable list trusts nothing and says why.
func (l List) Trusted(key string) (bool, time.Time, error) {
	f, err := l.read()
	if err != nil {
		return false, time.Time{}, err
	}
	k, ok := f.lookup(key)
	return ok, f.Projects[k].Trusted, nil
}

// Entries lists the trusted projects, sorted by root.
func (l List) Entries() ([]Entry, error) {
	f, err := l.read()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(f.Projects))
	for root, e := range f.Projects {
		out = append(out, Entry{Root: root, Trusted: e.Trusted})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// Trust adds a project. It reports false when it was trusted already (the
// original time is kept).
func (l List) Trust(key string, now time.Time) (added bool, err error) {
	err = l.update(func(f *file) {
		if _, ok := f.lookup(key); !ok {
			f.Projects[key] = fileEntry{Trusted: now.UTC().Truncate(time.Second)}
			added = true
		}
	})
	return added, err
}

// Untrust removes a project. It reports false when it was not trusted.
func (l List) Untrust(key string) (removed bool, err error) {
	err = l.update(func(f *file) {
		if k, ok := f.lookup(key); ok {
			delete(f.Projects, k)
			removed = true
		}
	})
	return removed, err
}

// update changes the list under a lock on a sidecar file and replaces it
// atomically, so two `ocmem trust` at once both land.
func (l List) update(fn func(*file)) error {
	if l.Path == "" {
		return errors.New("no trust list is configured")
	}
	dir := filepath.Dir(l.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock := flock.New(l.Path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock the trust list: %w", err)
	}
	defer lock.Unlock()
	f, err := l.read()
	if err != nil {
		return err
	}
	fn(f)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+FileName+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), l.Path)
}

// Func returns a check for engine.Config.ProjectTrusted: it reads the list
// on every call (a few hundred bytes), so trusting or untrusting takes
// effect at the next load without a restart. An unreadable list trusts
// nothing.
func (l List) Func(projectMemoryDir string) func() bool {
	if projectMemoryDir == "" {
		return func() bool { return false }
	}
	key := ProjectKey(projectMemoryDir)
	return func() bool {
		ok, _, err := l.Trusted(key)
		return ok && err == nil
	}
}
