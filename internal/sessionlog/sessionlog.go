// Package sessionlog remembers, per OpenCode session, which memories the
// session was given (engine.Hit.GivenKey), so the serve process and
// `ocmem inject --session` do not inject a body twice. The engine takes
// the log's Seen as engine.InjectOptions.Seen; it does not know the log.
package sessionlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ocmem/ocmem/internal/atomicfile"
)

// Log remembers which memories a session was given, so a body is not
// injected twice: once given, it stays in the conversation. It is keyed on
// the memory and a digest of its content (engine.Hit.GivenKey): a memory edited
// since is given again, so the model does not hold an old body beside the
// new summary. It is kept in the
// user's cache directory (not in a root: it is neither synced nor shared) so
// a restarted serve process or a CLI preview continue where they were.
type Log struct {
	path string
	mu   sync.Mutex
	ids  map[string]bool
}

// Dir is where session logs live; OCMEM_CACHE_DIR overrides it.
func Dir() (string, error) {
	if d := os.Getenv("OCMEM_CACHE_DIR"); d != "" {
		return filepath.Join(d, "sessions"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ocmem", "sessions"), nil
}

// Open loads the log of a session (empty if new).
func Open(session string) (*Log, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	// The id comes from outside; hashing it makes any id a safe file name.
	sum := sha256.Sum256([]byte(session))
	l := &Log{path: filepath.Join(dir, hex.EncodeToString(sum[:12])+".json"), ids: map[string]bool{}}
	if b, err := os.ReadFile(l.path); err == nil {
		var ids []string
		if json.Unmarshal(b, &ids) == nil {
			for _, id := range ids {
				l.ids[id] = true
			}
		}
	}
	return l, nil
}

// Seen reports whether the session was given a memory in this content
// (engine.Hit.GivenKey).
func (l *Log) Seen(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[key]
}

// Len is how many memory versions the session was given.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ids)
}

// Given lists the memories the session was given, as "scope:id", each
// once, sorted: what an idle re-check of stale memories asks about.
func (l *Log) Given() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for k := range l.ids {
		if i := strings.LastIndexByte(k, '@'); i >= 0 {
			k = k[:i]
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Reset forgets what the session was given, on disk too: after OpenCode
// compacts a session, its summary may have dropped the bodies given
// earlier, so they may be given again.
func (l *Log) Reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = map[string]bool{}
	if err := os.Remove(l.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Add records memories as given and saves the log.
func (l *Log) Add(keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		l.ids[k] = true
	}
	ids := make([]string, 0, len(l.ids))
	for k := range l.ids {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	b, _ := json.Marshal(ids)
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return err
	}
	// Whole, but not synced: the serve process holds the log in memory,
	// so the file matters only to the next process, and a copy a crash of
	// the machine lost or emptied gives the session its bodies once more,
	// which costs less than two syncs on every turn that gives a body
	// (half a millisecond of a serve turn's 5 at 100,000 memories).
	return atomicfile.WriteUnsynced(l.path, b, 0o644)
}
