// Package watch tells the long-lived processes (ocmem serve, the viewer,
// the MCP server) when memory files change on disk, so that each reads
// again just what changed.
package watch

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/ocmem/ocmem/internal/store"
)

// Watcher turns file-system events under the memory roots into calls of
// its onChange: the changed file, or "" when anything under a root may have
// changed. fsnotify watches directories, not trees, so it watches each
// root (Add) and every folder under it (folders nest:
// guides/deploy/prod.md), which the engine's loads tell it of as they list
// them (Folder, through engine.Engine.WatchFolders), each before listing
// it: what a load misses of a folder raises an event, and the watcher
// never walks a root itself. A new folder makes the whole root change, so
// the next load lists it and what it already holds. A root that cannot be
// watched (missing, or the platform refuses) falls back to polling: a
// fingerprint of every file's size and mtime, compared on each request.
type Watcher struct {
	log        *slog.Logger
	invalidate func(root, path string) // path "": anything under root may have changed

	mu        sync.Mutex
	fsw       *fsnotify.Watcher
	roots     map[string]bool   // roots being watched
	dirs      map[string]string // watched dir → its root
	refused   map[string]bool   // folders the platform would not watch: not tried again
	prints    map[string]uint64 // polled root → fingerprint
	closing   chan struct{}
	closeOnce sync.Once
}

// New returns a watcher that calls invalidate for every change under a
// watched root; path is the changed file, or "" when anything under root
// may have changed. A nil log discards.
func New(log *slog.Logger, invalidate func(root, path string)) *Watcher {
	w := NewPolling(log, invalidate)
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.log.Warn("file watching unavailable; polling instead", "err", err)
		return w
	}
	w.fsw = fsw
	go w.loop()
	return w
}

// NewPolling returns a watcher that watches nothing and polls every root
// (Unseen), as New does where the platform offers no file watching; it
// holds nothing to close.
func NewPolling(log *slog.Logger, invalidate func(root, path string)) *Watcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{log: log, invalidate: invalidate, roots: map[string]bool{}, dirs: map[string]string{}, refused: map[string]bool{}, prints: map[string]uint64{}, closing: make(chan struct{})}
}

// Close stops watching. Closing again does nothing.
func (w *Watcher) Close() {
	w.closeOnce.Do(func() {
		close(w.closing)
		if w.fsw != nil {
			w.fsw.Close()
		}
	})
}

// Add starts watching a root if it exists and is not watched yet: the
// root's own folder; its folders are watched as loads list them (Folder).
func (w *Watcher) Add(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fsw == nil || w.roots[root] {
		return
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return
	}
	if err := w.addDir(root, root); err != nil {
		w.log.Warn("cannot watch memory root; polling instead", "root", root, "err", err)
		return
	}
	w.roots[root] = true
	w.log.Info("watching memory root", "root", root)
}

// Folder watches a folder of a watched root, if it is not watched yet: a
// load tells of each folder before it lists it (engine.FolderWatcher).
// The folders of a root that is not watched are not: it is polled, and
// read again whole once it is watched.
func (w *Watcher) Folder(root, dir string) {
	select {
	case <-w.closing:
		return // a load after Close
	default:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fsw == nil || !w.roots[root] || w.refused[dir] {
		return
	}
	if _, ok := w.dirs[dir]; ok {
		return
	}
	if err := w.addDir(dir, root); err != nil {
		w.refused[dir] = true
		w.log.Warn("cannot watch memory folder", "dir", dir, "err", err)
	}
}

func (w *Watcher) addDir(dir, root string) error {
	if err := w.fsw.Add(dir); err != nil {
		return err
	}
	w.dirs[dir] = root
	return nil
}

// dropTree forgets dir and the folders under it, gone from the disk (the
// kernel drops their watches itself), and that any was refused. The
// caller holds w.mu.
func (w *Watcher) dropTree(dir string) {
	prefix := dir + string(filepath.Separator)
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(w.dirs, d)
		}
	}
	for d := range w.refused {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(w.refused, d)
		}
	}
}

// Watching reports whether events come for root.
func (w *Watcher) Watching(root string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.roots[root]
}

func (w *Watcher) loop() {
	for {
		select {
		case <-w.closing:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: drop every cache to be safe.
			w.log.Warn("file watcher error; reloading all roots", "err", err)
			w.mu.Lock()
			roots := make([]string, 0, len(w.roots))
			for r := range w.roots {
				roots = append(roots, r)
			}
			w.mu.Unlock()
			for _, r := range roots {
				w.invalidate(r, "")
			}
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	base := filepath.Base(ev.Name)
	// Our own state and lock files change on every recall; they never
	// change what is injected, so they do not invalidate.
	if base == ".state.json" || base == ".ocmem.lock" || strings.HasSuffix(base, ".tmp") {
		return
	}
	w.mu.Lock()
	root, ok := w.dirs[filepath.Dir(ev.Name)]
	if !ok {
		root, ok = w.dirs[ev.Name]
	}
	newDir := false
	if ok && ev.Has(fsnotify.Create) && ev.Name != root && !strings.HasPrefix(base, ".") {
		// A new folder anywhere in the tree, maybe with folders and files
		// in it already (mkdir -p, a checkout, a move): watch it and
		// reload the root, whose next load lists it, telling of the
		// folders in it.
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			if err := w.addDir(ev.Name, root); err != nil {
				w.log.Warn("cannot watch new memory folder", "dir", ev.Name, "err", err)
			}
			newDir = true
		}
	}
	wasDir := false
	if ok && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		if ev.Name == root {
			delete(w.roots, root) // the root itself went away: poll until it is back
		}
		if _, wasDir = w.dirs[ev.Name]; wasDir {
			w.dropTree(ev.Name)
		}
	}
	w.mu.Unlock()
	switch {
	case !ok:
	case ev.Name == root || newDir || wasDir || w.isDir(ev.Name):
		w.invalidate(root, "")
	default:
		// One file: the engine can read just that file again.
		w.invalidate(root, ev.Name)
	}
}

// isDir reports whether path is a watched folder.
func (w *Watcher) isDir(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.dirs[path]
	return ok
}

// PollChanged reports, for a root that is not watched, whether the files under root changed since the last
// call (the first call reports true).
func (w *Watcher) PollChanged(root string) bool {
	h := fnv.New64a()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return fs.SkipDir
		}
		if info, err := d.Info(); err == nil {
			// The stamp (change time and inode, on Unix) catches an edit
			// that keeps the size and the modification time.
			var stamp uint64
			if !d.IsDir() {
				stamp = store.StatStamp(path)
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\n", path, info.Size(), info.ModTime().UnixNano(), stamp)
		}
		return nil
	})
	sum := h.Sum64()
	w.mu.Lock()
	defer w.mu.Unlock()
	old, seen := w.prints[root]
	w.prints[root] = sum
	return !seen || old != sum
}

// Unseen returns the roots, of those given, whose files may have changed
// without an event: a root that was not watched is watched from now on if
// it exists (what came before was not seen), and one that still cannot be
// watched is polled. A caller reads the roots it returns again, whole.
// Empty names are skipped.
func (w *Watcher) Unseen(roots ...string) []string {
	var out []string
	for _, d := range roots {
		if d == "" || w.Watching(d) {
			continue
		}
		w.Add(d) // the root may exist now
		if w.Watching(d) || w.PollChanged(d) {
			out = append(out, d)
		}
	}
	return out
}
