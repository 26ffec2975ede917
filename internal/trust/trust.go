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
// same for every worktree.
//
// Trust follows content, not only the path: with each project the list
// pins the rules the user accepted (a digest and the text of each kind:
// rule memory, and of ROOT.md's hard-rules section as a whole: a line
// there means what its heading and lead-in say). A rule that
// arrives later with a pull, or whose text changed, is not pinned, so it is
// not in force until the user accepts it (`ocmem trust` again, or `ocmem
// accept` for one rule). Rules the user writes through ocmem are pinned as
// they are written.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ocmem/ocmem/internal/atomicfile"
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
	Pinned  int       `json:"pinned"` // how many rules are pinned
}

// Pin is one accepted rule: Key names it (a memory's id, or
// RootMDSectionKey for ROOT.md's hard-rules section), SHA256 is the digest
// of its text, Text the text itself, kept so a later change can be shown
// as a diff.
type Pin struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
	Text   string `json:"text"`
}

// RootMDKey names ROOT.md's hard rules where a person names them
// (`ocmem accept ROOT.md`). Lists written by earlier versions pinned the
// section's lines one by one under this key; such pins put nothing in
// force any more (a line's meaning depends on the lines around it), and
// pinning the section withdraws them.
const RootMDKey = "ROOT.md"

// RootMDSectionKey is the key of the pin of ROOT.md's hard-rules section,
// accepted as a whole: its headings, lead-ins and lines, in order.
const RootMDSectionKey = "ROOT.md#hard-rules"

// NewPin pins a rule's text.
func NewPin(key, text string) Pin {
	return Pin{Key: key, SHA256: Digest(text), Text: text}
}

// Digest is the hex SHA-256 of a rule's text.
func Digest(text string) string {
	d := DigestBytes([]byte(text))
	return string(d[:])
}

// DigestBytes is Digest of a text in bytes, without allocating: the
// digest's hexadecimal digits.
func DigestBytes(text []byte) (hexDigits [2 * sha256.Size]byte) {
	sum := sha256.Sum256(text)
	hex.Encode(hexDigits[:], sum[:])
	return hexDigits
}

// PinsDigest is the fingerprint of a set of pins: the Digest of their
// keys and digests, one "SHA256 key" line each, sorted, so it names the
// exact texts that pinning them accepts and nothing else (a person shown
// a project's rules checks it to accept only what they were shown).
func PinsDigest(pins []Pin) string {
	lines := make([]string, 0, len(pins))
	for _, p := range pins {
		lines = append(lines, p.SHA256+" "+p.Key+"\n")
	}
	sort.Strings(lines)
	return Digest(strings.Join(lines, ""))
}

// State is what the list says about one project.
type State struct {
	// Trusted: the user ran `ocmem trust` for the project (Since is when
	// they first did). A project may have pins without being trusted: the
	// rules the user wrote there through ocmem.
	Trusted bool      `json:"trusted"`
	Since   time.Time `json:"since,omitzero"`
	Pins    []Pin     `json:"pins"`
}

// file is trusted.json.
type file struct {
	Version  int                  `json:"version"`
	Projects map[string]fileEntry `json:"projects"`
}

// fileEntry is one project. Trusted is zero when the project holds only
// pins of rules the user wrote (it is not trusted). A version-1 list has
// no pins: its projects are trusted but no rule is pinned, so their rules
// wait for `ocmem trust` again.
type fileEntry struct {
	Trusted time.Time `json:"trusted,omitzero"`
	Pins    []Pin     `json:"pins,omitempty"`
}

const version = 2

// maxFileSize bounds trusted.json: an entry is about 100 bytes, plus its
// pinned rules' text.
const maxFileSize = 16 << 20

// List is the trust list at Path. The zero Path trusts nothing.
type List struct {
	Path string
}

// ErrCorrupt is returned when trusted.json cannot be read as a trust list.
// Nothing is trusted then, and the file is not overwritten.
var ErrCorrupt = errors.New("the trust list is not valid JSON of ocmem's shape; fix or delete it")

// read reads the list for a change to it.
func (l List) read() (*file, error) {
	return l.readWith(func(path string, _ fs.FileInfo) (*file, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return parseFile(b)
	})
}

// readShared reads the list for a lookup: the file is parsed again only
// after it changed (serve looks a project up on every request), and the
// value is shared, not to be modified.
func (l List) readShared() (*file, error) {
	return l.readWith(parsed.Get)
}

// parsed keeps the trust lists read by readShared.
var parsed = store.FileCache[*file]{Parse: parseFile, Max: maxFileSize}

func (l List) readWith(get func(string, fs.FileInfo) (*file, error)) (*file, error) {
	if l.Path == "" {
		return &file{Version: version, Projects: map[string]fileEntry{}}, nil
	}
	info, err := os.Stat(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: version, Projects: map[string]fileEntry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: %w", l.Path, ErrCorrupt)
	}
	f, err := get(l.Path, info)
	if errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("%s: %w", l.Path, ErrCorrupt)
	}
	return f, err
}

// parseFile reads a trust list's content.
func parseFile(b []byte) (*file, error) {
	f := &file{Version: version, Projects: map[string]fileEntry{}}
	if err := json.Unmarshal(b, f); err != nil || f.Version < 1 || f.Version > version {
		return nil, ErrCorrupt
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
	f, err := l.readShared()
	if err != nil {
		return false, time.Time{}, err
	}
	k, ok := f.lookup(key)
	at := f.Projects[k].Trusted
	return ok && !at.IsZero(), at, nil
}

// State reads what the list holds for a project. An unreadable list
// trusts and pins nothing and says why.
func (l List) State(key string) (State, error) {
	f, err := l.readShared()
	if err != nil {
		return State{}, err
	}
	k, ok := f.lookup(key)
	if !ok {
		return State{}, nil
	}
	e := f.Projects[k]
	return State{Trusted: !e.Trusted.IsZero(), Since: e.Trusted, Pins: slices.Clone(e.Pins)}, nil
}

// Entries lists the trusted projects, sorted by root.
func (l List) Entries() ([]Entry, error) {
	f, err := l.read()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(f.Projects))
	for root, e := range f.Projects {
		if !e.Trusted.IsZero() {
			out = append(out, Entry{Root: root, Trusted: e.Trusted, Pinned: len(e.Pins)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// Trust adds a project, keeping its pins. It reports false when it was
// trusted already (the original time is kept).
func (l List) Trust(key string, now time.Time) (added bool, err error) {
	return l.trust(key, now, nil, false)
}

// Accept trusts a project and pins exactly the given rules: what is in
// force from now on. It reports whether the project was not trusted before.
func (l List) Accept(key string, now time.Time, pins []Pin) (added bool, err error) {
	return l.trust(key, now, pins, true)
}

func (l List) trust(key string, now time.Time, pins []Pin, setPins bool) (added bool, err error) {
	err = l.update(func(f *file) {
		k, ok := f.lookup(key)
		if !ok {
			k = key
		}
		e := f.Projects[k]
		if e.Trusted.IsZero() {
			e.Trusted = now.UTC().Truncate(time.Second)
			added = true
		}
		if setPins {
			e.Pins = sortPins(pins)
		}
		f.Projects[k] = e
	})
	return added, err
}

// Pin records rules the user accepted or wrote, without trusting the
// project: every pin of a key given is replaced by the given ones (so
// pinning ROOT.md's section replaces the section accepted before, and the
// lines an earlier version pinned one by one).
func (l List) Pin(key string, pins []Pin) error {
	if len(pins) == 0 {
		return nil
	}
	return l.update(func(f *file) {
		k, ok := f.lookup(key)
		if !ok {
			k = key
		}
		e := f.Projects[k]
		keys := ReplacedKeys(pins)
		var kept []Pin
		for _, p := range e.Pins {
			if !keys[p.Key] {
				kept = append(kept, p)
			}
		}
		e.Pins = sortPins(append(kept, pins...))
		f.Projects[k] = e
	})
}

// ReplacedKeys are the keys whose pins pinning pins replaces: their own,
// and with ROOT.md's section the lines of it pinned one by one before.
func ReplacedKeys(pins []Pin) map[string]bool {
	keys := map[string]bool{}
	for _, p := range pins {
		keys[p.Key] = true
		if p.Key == RootMDSectionKey {
			keys[RootMDKey] = true
		}
	}
	return keys
}

// sortPins orders pins by key, then text, without duplicates.
func sortPins(pins []Pin) []Pin {
	out := append([]Pin(nil), pins...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Text < out[j].Text
	})
	var dedup []Pin
	for i, p := range out {
		if i > 0 && p == out[i-1] {
			continue
		}
		dedup = append(dedup, p)
	}
	return dedup
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
	f.Version = version
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	// The list is the person's file: a link to it (from a dotfiles
	// repository) is kept, and so is its mode (0600 when new).
	if _, err := atomicfile.Replace(l.Path, append(b, '\n'), 0o600); err != nil {
		return err
	}
	// A temp file of a writer killed mid-write.
	store.RemoveStaleTemp(dir, trustTempName, time.Now(), store.TempMaxAge)
	return nil
}

// trustTempName matches update's temp files.
var trustTempName = regexp.MustCompile(`^\.` + regexp.QuoteMeta(FileName) + `\.[0-9]+\.tmp$`)

// Func returns a check of whether a project is trusted: it reads the list
// on every call, so trusting or untrusting takes effect at once. An
// unreadable list trusts nothing.
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

// Project is one project's view of the list, for engine.Config.Trust: it
// reads the list on every call (a few kilobytes), so a decision takes
// effect at the next load without a restart.
type Project struct {
	List List
	Key  string
}

// For returns the view of the project whose memory root is
// projectMemoryDir.
func (l List) For(projectMemoryDir string) Project {
	return Project{List: l, Key: ProjectKey(projectMemoryDir)}
}

// State is List.State of the project.
func (p Project) State() (State, error) { return p.List.State(p.Key) }

// Pin is List.Pin for the project.
func (p Project) Pin(pins []Pin) error { return p.List.Pin(p.Key, pins) }

// Accept is List.Accept for the project, at the current time.
func (p Project) Accept(pins []Pin) (bool, error) { return p.List.Accept(p.Key, time.Now(), pins) }
