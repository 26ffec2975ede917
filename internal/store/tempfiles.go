package store

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Temp files of killed writers
//
// writeAtomic writes through a temp file beside its target,
// ".<name>.<digits>.tmp". A writer killed between creating and renaming
// it leaves the file behind: never loaded (its name starts with a dot) and
// git-ignored, but never removed either. Writes clean them up: a file of
// exactly that pattern, older than TempMaxAge, is removed. Nothing else is
// touched: not a person's ".notes.tmp", not a file in .git or any other
// dot-folder, not a symlink, nothing through a symlinked folder.

// TempMaxAge is how old a temp file must be before it counts as left by a
// killed writer. A write takes well under a second; an hour leaves any
// writer that is still running alone, even on a slow network disk.
const TempMaxAge = time.Hour

// TempName matches writeAtomic's temp file names (os.CreateTemp puts
// decimal digits where the pattern has its "*").
var TempName = regexp.MustCompile(`^\..+\.[0-9]+\.tmp$`)

// RemoveStaleTemp removes the regular files in dir (not below it) whose
// names match pattern and that were last modified before now-maxAge. It
// returns the paths removed; errors are skipped, the next write tries
// again.
func RemoveStaleTemp(dir string, pattern *regexp.Regexp, now time.Time, maxAge time.Duration) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, de := range entries {
		if p := staleTemp(dir, de, pattern, now, maxAge); p != "" && os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// staleTemp returns the path of de when it is a stale temp file, else "".
func staleTemp(dir string, de fs.DirEntry, pattern *regexp.Regexp, now time.Time, maxAge time.Duration) string {
	if !de.Type().IsRegular() || !pattern.MatchString(de.Name()) {
		return ""
	}
	info, err := de.Info()
	if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < maxAge {
		return ""
	}
	return filepath.Join(dir, de.Name())
}

// CleanTemp removes writeAtomic's temp files older than maxAge anywhere in
// the root (see above). The caller holds the root's lock. It returns the
// paths removed.
func (r Root) CleanTemp(now time.Time, maxAge time.Duration) []string {
	if r.Dir == "" {
		return nil
	}
	var removed []string
	_ = filepath.WalkDir(r.Dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if de != nil && de.IsDir() && p != r.Dir {
				return filepath.SkipDir
			}
			return nil
		}
		if de.IsDir() {
			if p != r.Dir && strings.HasPrefix(de.Name(), ".") { // .git, caches
				return filepath.SkipDir
			}
			return nil
		}
		if t := staleTemp(filepath.Dir(p), de, TempName, now, maxAge); t != "" && os.Remove(t) == nil {
			removed = append(removed, t)
		}
		return nil
	})
	return removed
}

// CleanTempIn is CleanTemp for the given folders of the root only
// (slash-separated, "" for the root itself), not below them: what a write
// that touched only those folders can have left. It reads the folders'
// names without sorting them or stat'ing any but a temp file's, so a
// folder of 20,000 memories costs a few milliseconds. The caller holds the
// root's lock.
func (r Root) CleanTempIn(now time.Time, maxAge time.Duration, dirs ...string) []string {
	var removed []string
	for _, rel := range dirs {
		if dir, err := r.tempDir(rel); err == nil {
			removed = append(removed, removeStaleTempNames(dir, now, maxAge)...)
		}
	}
	return removed
}

func removeStaleTempNames(dir string, now time.Time, maxAge time.Duration) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var removed []string
	for {
		names, err := f.Readdirnames(1024)
		for _, name := range names {
			if !strings.HasPrefix(name, ".") || !TempName.MatchString(name) {
				continue
			}
			if p := filepath.Join(dir, name); removeIfStale(p, now, maxAge) {
				removed = append(removed, p)
			}
		}
		if err != nil || len(names) == 0 {
			return removed
		}
	}
}

// removeIfStale removes the file at p when it is a regular file last
// modified before now-maxAge, and reports whether it did.
func removeIfStale(p string, now time.Time, maxAge time.Duration) bool {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < maxAge {
		return false
	}
	return os.Remove(p) == nil
}

// CleanListedTemp is CleanTempIn for the temp files a listing of the root
// named (Listing.Temps) in the given folders: only those files are
// statted, and no folder is read. A listing made less than maxAge before
// now names every temp file that can be stale by now, since a file made
// after the listing is younger than maxAge. The caller holds the root's
// lock.
func (r Root) CleanListedTemp(now time.Time, maxAge time.Duration, listed []string, dirs ...string) []string {
	var removed []string
	for _, rel := range dirs {
		dir, err := r.tempDir(rel)
		if err != nil {
			continue
		}
		for _, t := range listed {
			d, name := path.Split(t)
			if strings.TrimSuffix(d, "/") != rel || !TempName.MatchString(name) {
				continue
			}
			if p := filepath.Join(dir, name); removeIfStale(p, now, maxAge) {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// tempDir is the folder rel of the root ("" for the root itself) whose
// temp files a write may remove: inside the root, through no symlink.
func (r Root) tempDir(rel string) (string, error) {
	if rel == "" {
		return r.Dir, nil
	}
	p, err := r.Path(rel)
	if err != nil {
		return "", err
	}
	if err := r.checkInside(rel); err != nil {
		return "", err
	}
	return p, nil
}
