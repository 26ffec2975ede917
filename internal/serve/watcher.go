package serve

import "log/slog"

// Watcher is the file watcher serve uses, for other long-lived processes
// (ocmem ui) that must see memories change on disk: fsnotify on each root
// and its category folders, with polling for a root that cannot be watched.
type Watcher struct{ w *watcher }

// NewWatcher returns a watcher that calls onChange for every change under a
// watched root; path is the changed file, or "" when anything under root
// may have changed.
func NewWatcher(log *slog.Logger, onChange func(root, path string)) *Watcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{newWatcher(log, onChange)}
}

// Add starts watching root when it exists and is not watched yet.
func (w *Watcher) Add(root string) { w.w.add(root) }

// Watching reports whether events come for root.
func (w *Watcher) Watching(root string) bool { return w.w.watching(root) }

// PollChanged reports whether the files under root changed since the last
// call; for a root that is not watched.
func (w *Watcher) PollChanged(root string) bool { return w.w.pollChanged(root) }

// Close stops watching.
func (w *Watcher) Close() { w.w.close() }
