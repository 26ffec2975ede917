// Package engine is the one API every edge of ocmem calls (the CLI, the
// OpenCode plugin's serve process, the MCP server): Recall, Remember, Forget,
// Inspect, Compile and Inject over the two memory roots.
//
//	e := engine.New(engine.Config{GlobalDir: g, ProjectDir: p})
//	hits, err := e.Recall("部署前要做什么", engine.RecallOptions{Limit: 4})
//
// An Engine caches what it loaded (files, the inverted index) until
// Invalidate or InvalidateFile says files changed on disk; its own writes
// patch what it holds (writes.go). The serve process invalidates on
// file-system events, the CLI loads once per command.
//
// What is not here: the text the edges print of the engine's answers
// (internal/render), how the roots are loaded into a snapshot, cached and
// patched, and the tables a root's compiled files are made of kept in step
// with it (internal/snapshot), the load cache's file format
// (internal/snapfile), the per-session log of given memories
// (internal/sessionlog), the git merge driver (internal/mergedriver), a
// memory's file name from its summary (store.Slugify), the text the model
// is given of a memory: framed, escaped, masked and cut (internal/prompt),
// the rules and outline tiers, the outline's gone and outdated marks and
// the views of a project's rules (internal/tiers), which project rule is in force (trust.Gate), and the
// options a person sets, their defaults and the plugin's options object
// (internal/options).
//
// Files, one concern each, from the ground up:
//
//   - names.go: the names of roots, memories, rules, the trust list and
//     secrets that the edges use, so that they import none of the
//     packages behind.
//   - refusal.go: Refusal and the errors callers branch on.
//   - engine.go: Config, Engine and New.
//   - load.go: Load: the current snapshot, loaded (internal/snapshot) or
//     patched with the files events named and the engine's own writes.
//   - invalidate.go: Invalidate and InvalidateFile: file events judged
//     against what the engine holds and wrote.
//   - stable.go: the stable tiers of a snapshot, rendered once
//     (internal/tiers) against the trust decisions read then.
//   - writes.go: how a write changes only what it touches: the lock and
//     the write generation, the compiled files from the root's tables
//     (snapshot.Tables).
//   - recall.go: Hit and Recall.
//   - inspect.go: Inspect: every memory listed and each root checked
//     (the checks are internal/inspect's).
//   - touch.go: TouchEdited: a hand edit's updated time.
//   - compile.go: Compile: the index.md files and ROOT.md of a root.
//   - inject.go: Injection, Inject and Stable: which memories each tier
//     gets.
//   - stale.go: memories anchored to code that changed or went since
//     they were verified, as a turn shows them (internal/stale keeps
//     their states; tiers.Marks marks the outline).
//   - worktree.go: which worktree a call's anchors are checked in, one
//     tracker each.
//   - formatting.go: VerifyFormatting (`ocmem verify --all-fresh`): the
//     changed memories whose code changed only in formatting, verified.
//   - check.go: Check: which tool calls the rules in force stop.
//   - trust.go: the project's rules against the trust list (ProjectRules,
//     Trust) and the pins a person's write leaves; which rule is in
//     force is trust.Gate's decision.
//   - unlink.go: the supersede links Forget repairs.
//   - remember.go: Remember and Forget (the duplicate check is
//     snapshot.Twins).
//   - rules.go: hard rules and proposals: Rules, Accept, Reject.
//   - edits.go, preview.go: what a write would touch, read without
//     writing.
package engine

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// Config locates the roots. An empty dir means that root is not used.
type Config struct {
	GlobalDir  string
	ProjectDir string
	// ProjectChosen says the user named ProjectDir (a flag,
	// OCMEM_PROJECT), so it is written wherever it leads; a project root
	// found from the working directory is written only when it is no
	// link (store.Root.CheckWritable).
	ProjectChosen bool
	Options       options.Options
	// Now returns the current time; nil means time.Now. Tests fix it.
	Now func() time.Time
	// Trust is the user's record of which of the project root's hard rules
	// they accepted (internal/trust); the others are shown only as the
	// repository's proposals (see renderRules). nil puts every rule in
	// force: a library caller chose its roots itself. The CLI, serve and
	// MCP pass the user's trust list.
	Trust RuleTrust
	// TouchEdits keeps, for TouchEdited, the version of each memory file
	// an event names as the engine held it: a long-lived process that
	// moves `updated` after a hand edit (serve) sets it; others keep
	// nothing.
	TouchEdits bool
	// CodeDir is the worktree in use, where memories' anchors are checked
	// (stale.go); "" means the folder holding ProjectDir when that is a
	// .memory folder.
	CodeDir string
	// TuneGC lets the engine set the process's garbage collector around a
	// cold build and a fresh process's write (snapshot.TuneGC), which
	// lowers the peak memory of a build and the time of a write. The
	// setting is the whole process's, so only the program that owns main
	// turns it on (cmd/ocmem does); a library caller's is left alone.
	TuneGC bool
}

// Engine serves both roots. It is safe for concurrent use.
type Engine struct {
	global, project store.Root
	opts            options.Options
	now             func() time.Time
	trust           RuleTrust

	mu   sync.Mutex
	snap *Snapshot
	// last is the previous snapshot, kept after Invalidate so a reload
	// reuses the files that did not change.
	last *Snapshot
	// changed lists the files reported changed since last (InvalidateFile),
	// by root; walk says a full reload (every file stat'ed) is needed.
	changed map[store.Scope]map[string]bool
	walk    bool
	// epoch counts invalidations and counted recalls: a load that ran
	// without mu installs its snapshot only if nothing was invalidated or
	// counted meanwhile.
	epoch uint64
	// written holds the files this engine's own writes changed since last,
	// as they are on disk (nil: removed), and writtenRoot the ROOT.md they
	// left, by root: the next load patches them in without listing the
	// roots (writes.go).
	written     map[store.Scope]map[string]*store.File
	writtenRoot map[store.Scope][]byte
	// heldRoot is, by root, the ROOT.md this engine wrote last and the
	// file's status right after: while the status is unchanged the file
	// is not read again to know what it holds (rootAsWritten).
	heldRoot [2]heldRoot
	// wview is last with written patched in, without its corpus: what
	// the next write starts from while nothing else changed (wepoch is
	// the epoch it was made at), so that back-to-back writes never wait
	// for the index to be renumbered; only a read does, once.
	wview  *Snapshot
	wepoch uint64
	// gens is each root's write generation (store.Root.Generation) at
	// which what Load returns is known to hold every write of another
	// process; index 0 is global.
	gens [2]uint64

	// writeMu serializes this engine's writes, and guards tables: per
	// root, what its compiled files are made of (writes.go).
	writeMu sync.Mutex
	tables  [2]*snapshot.Tables
	// tempCleaned is when each folder (by path) last had its killed
	// writers' temp files removed (writeCompiled). Guarded by writeMu.
	tempCleaned map[string]time.Time
	// tablesBase is, for a root whose tables are not built yet, the
	// snapshot from before the first change the engine heard of: the
	// tables are built from it, so that the change counts as one. built
	// says the tables exist. Both are guarded by mu.
	tablesBase [2]*Snapshot
	built      [2]bool
	// touched lists, by root, the categories of the memory files that
	// events named or a full load found changed since the compiled files
	// were last written ("" for ROOT.md; all true or "*": every
	// category): they are compiled again even when the tables hold no
	// change for them, since the files may have come and gone between two
	// loads while another process compiled them in, and a git merge
	// leaves index.md files as no compile writes them. Guarded by mu.
	touched [2]map[string]bool
	all     [2]bool
	// restoreGC puts back the collector a fresh process's write turned
	// off (loadForWrite). Guarded by mu.
	restoreGC func()
	// loader loads the roots' snapshots and keeps their load cache; its
	// files-only loads (a write's) run under mu.
	loader *snapshot.Loader
	// inWrite says a write of this engine holds a root's lock; the events
	// that arrive meanwhile are judged when it ends (deferred, by root),
	// since the write's own files are known only once written. Guarded
	// by mu.
	inWrite  [2]bool
	deferred [2]map[string]bool
	// edited holds, by root, the memory files events named since
	// TouchEdited last ran, each with the memory the engine held before
	// (nil: none), to tell a hand edit from the version before it.
	// Guarded by mu.
	edited [2]map[string]*memory.Memory
	// touchEdits is Config.TouchEdits: edited is kept at all.
	touchEdits bool
	// tuneGC is Config.TuneGC.
	tuneGC bool
	// folders is told of each folder a load lists (WatchFolders); not
	// guarded by mu, which a load may hold.
	folders atomic.Pointer[FolderWatcher]
	// stale keeps the anchored memories' states (nil: no code to check
	// in), marks its outline as the worktree shows it (tiers.Marks).
	stale *stale.Tracker
	marks tiers.Marks
	// worktrees are the trackers of the other worktrees calls named
	// (worktree.go).
	worktrees worktrees

	// seams are the package's tests' hooks into this engine; New leaves
	// them zero, so that no test reaches another's engine.
	seams seams
}

// seams are hooks the package's tests set on one engine.
type seams struct {
	// afterFreshLoad runs between loadFresh's load and the moment it
	// installs the snapshot.
	afterFreshLoad func()
	// afterCountWrite runs between count's update of .state.json and its
	// update of the snapshot.
	afterCountWrite func()
	// tablesNotFromCache makes keptTables decline, so that a write builds
	// its tables from the memories.
	tablesNotFromCache bool
}

// New returns an engine over the configured roots; nothing is read yet.
func New(c Config) *Engine {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	e := &Engine{
		global:     store.Root{Scope: store.Global, Dir: c.GlobalDir},
		project:    store.Root{Scope: store.Project, Dir: c.ProjectDir, Chosen: c.ProjectChosen},
		opts:       c.Options,
		now:        now,
		trust:      c.Trust,
		touchEdits: c.TouchEdits,
		tuneGC:     c.TuneGC,
		stale:      newTracker(c),
	}
	e.loader = &snapshot.Loader{
		Global: e.global, Project: e.project, Categories: e.opts.CategoriesOrDefault(), Now: now,
		Watch: e.folderWatch, BeforeBuild: e.gcRestore, TuneGC: c.TuneGC,
		Kept: func(r store.Root, s *Snapshot) *compile.Tables {
			if rt := e.keptTables(r, s); rt != nil {
				return rt.T
			}
			return nil
		},
	}
	return e
}

// Options returns the engine's options.
func (e *Engine) Options() options.Options { return e.opts }

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

// FolderWatcher watches the folders of the roots for changes
// (watch.Watcher).
type FolderWatcher interface {
	// Folder is told of a folder of root, before a load lists it.
	Folder(root, dir string)
}

// folderWatch is what a listing of r tells of its folders, or nil.
func (e *Engine) folderWatch(r store.Root) func(dir string) {
	w := e.folders.Load()
	if w == nil {
		return nil
	}
	return func(dir string) { (*w).Folder(r.Dir, dir) }
}

func dirExists(dir string) bool {
	if dir == "" {
		return false
	}
	info, err := os.Stat(dir)
	return err == nil && info.IsDir()
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Snapshot is everything loaded from both roots at one moment
// (snapshot.Snapshot).
type Snapshot = snapshot.Snapshot

// RuleTrust is the user's record of a project's accepted rules
// (trust.Project implements it over the user's trust list).
type RuleTrust interface {
	// State returns whether the project is trusted and its pins.
	State() (trust.State, error)
	// Pin records rules as accepted, replacing the pins of their keys.
	Pin(pins []trust.Pin) error
	// Accept trusts the project and pins exactly the given rules.
	Accept(pins []trust.Pin) (added bool, err error)
}

// heldRoot is a ROOT.md an engine wrote, and the file's size and stamp
// (store.StatStamp: change time and inode) once written.
type heldRoot struct {
	md    []byte
	size  int64
	stamp uint64
}

// memoryRel checks a memory's id as a caller names it (with or without
// .md) and returns its file's path in its root and the id without .md.
func memoryRel(id string) (rel, clean string, err error) {
	rel = strings.TrimSuffix(id, ".md") + ".md"
	if err := pathsafe.Check(rel); err != nil {
		return "", "", err
	}
	if !strings.Contains(rel, "/") {
		return "", "", badRequest("id %q is not <category>/<slug>", id)
	}
	return rel, strings.TrimSuffix(rel, ".md"), nil
}
