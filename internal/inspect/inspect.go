// Package inspect holds the consistency checks of a memory root, as
// `ocmem inspect` reports them: files that do not parse, index.md and
// ROOT.md drift, broken supersede links, ids that collide, near
// duplicates, merge conflicts, suspected secrets, text that must not sync,
// guards left out. A check reads and never changes anything.
package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// Severity of an inspection finding: errors make `ocmem inspect` exit 1,
// warnings do not.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
)

// Issue is one inspection finding.
type Issue struct {
	Severity Severity    `json:"severity"`
	Check    string      `json:"check"` // unparsable, enforce, merge-conflict, secret, index-missing-line, index-extra-line, index-stale-line, index-drift, root-stale, unclosed-fence, broken-link, duplicate-id, near-duplicate, sync-staleness
	Scope    store.Scope `json:"scope"`
	Path     string      `json:"path"`
	Line     int         `json:"line,omitempty"`
	Message  string      `json:"message"`
}

func (i Issue) String() string {
	loc := i.Path
	if i.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, i.Line)
	}
	return fmt.Sprintf("%s: %s [%s] %s", i.Severity, loc, i.Check, i.Message)
}

// Root runs every check of root r on the snapshot s, for the configured
// categories.
func Root(r store.Root, s *snapshot.Snapshot, categories []string) []Issue {
	var mems []*memory.Memory
	var files []*store.File
	for _, f := range s.Files() {
		if f.Scope == r.Scope {
			mems = append(mems, f.Memory)
			files = append(files, f)
		}
	}
	var out []Issue
	out = append(out, checkIndexes(r, categories, mems)...)
	out = append(out, checkRootMD(r, s.RootMD[r.Scope], categories, mems)...)
	out = append(out, checkLinks(r, files, s)...)
	out = append(out, checkDuplicates(r, files)...)
	out = append(out, checkNearDuplicates(r, files)...)
	out = append(out, checkMemoryConflicts(r, files)...)
	out = append(out, checkSecrets(r, files)...)
	out = append(out, checkRootMDSecrets(r, s.RootMD[r.Scope])...)
	out = append(out, checkStaleness(r, files)...)
	out = append(out, checkEnforce(r, files)...)
	return out
}

// oneLine is an error's message on one line.
func oneLine(err error) string { return compile.OneLine(err.Error()) }

func checkIndexes(r store.Root, categories []string, mems []*memory.Memory) []Issue {
	var out []Issue
	cats := compile.Categories(categories, mems)
	// Index files compile wrote for categories no memory is in any more
	// are drift too; a folder's own index.md (no marker line) is not
	// ocmem's, as compile, which never removes it, agrees.
	entries, _ := os.ReadDir(r.Dir)
	for _, de := range entries {
		if de.IsDir() && !strings.HasPrefix(de.Name(), ".") && !contains(cats, de.Name()) {
			if data, err := r.ReadFile(de.Name() + "/" + store.IndexFile); err == nil && compile.Generated(data) {
				cats = append(cats, de.Name())
			}
		}
	}
	for _, c := range cats {
		if strings.Contains(c, "/") || pathsafe.Check(c) != nil {
			continue // not a category a memory can be in
		}
		rel := c + "/" + store.IndexFile
		path := filepath.Join(r.Dir, filepath.FromSlash(rel))
		want := compile.Index(c, mems)
		have, err := r.ReadFile(rel)
		if err != nil {
			out = append(out, Issue{SevError, "index-drift", r.Scope, path, 0, oneLine(err)})
			continue
		}
		if bytes.Equal(have, want) {
			continue
		}
		if line := compile.ConflictLine(have, false); line > 0 {
			out = append(out, Issue{SevError, "merge-conflict", r.Scope, path, line, "git conflict markers: a merge without the union merge .gitattributes asks for; `ocmem compile` rewrites the file"})
			continue
		}
		hasMems := false
		for _, m := range mems {
			hasMems = hasMems || m.Category() == c
		}
		if have == nil {
			if hasMems {
				out = append(out, Issue{SevError, "index-drift", r.Scope, path, 0, "index.md is missing; run `ocmem compile`"})
			}
			continue
		}
		wantIDs, wantLines := compile.IndexIDs(c, want)
		haveIDs, haveLines := compile.IndexIDs(c, have)
		found := false
		for _, id := range wantIDs {
			hl, ok := haveLines[id]
			switch {
			case !ok:
				out = append(out, Issue{SevError, "index-missing-line", r.Scope, path, 0, fmt.Sprintf("no line for %s; index.md is compiled from the memories: run `ocmem compile`", id)})
				found = true
			case hl != wantLines[id]:
				out = append(out, Issue{SevError, "index-stale-line", r.Scope, path, lineOf(have, hl), fmt.Sprintf("line for %s does not match its frontmatter (edited since the last compile?); index.md is compiled from the memories: run `ocmem compile`", id)})
				found = true
			}
		}
		for _, id := range haveIDs {
			if _, ok := wantLines[id]; !ok {
				out = append(out, Issue{SevError, "index-extra-line", r.Scope, path, lineOf(have, haveLines[id]), fmt.Sprintf("line for %s, which is not a memory here; index.md is compiled from the memories: run `ocmem compile`", id)})
				found = true
			}
		}
		if !found {
			out = append(out, Issue{SevError, "index-drift", r.Scope, path, 0, "index.md differs from what `ocmem compile` writes (order, header or duplicate lines, as a union merge leaves them); run `ocmem compile`"})
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func lineOf(data []byte, line string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSuffix(l, "\r") == line {
			return i + 1
		}
	}
	return 0
}

func checkRootMD(r store.Root, have []byte, categories []string, mems []*memory.Memory) []Issue {
	issues := checkRootTables(r, have, categories, mems)
	if line := compile.UnclosedFence(have); line > 0 {
		issues = append(issues, Issue{SevWarning, "unclosed-fence", r.Scope, filepath.Join(r.Dir, store.RootFile), line, unclosedFenceMessage})
	}
	return issues
}

// unclosedFenceMessage says what a code fence left open in ROOT.md does.
const unclosedFenceMessage = "a code fence opened here is never closed: Markdown reads all that follows as code, headings included, " +
	"so the sections below it are not what a reader sees (the hard rules still end at the compiled tables); close it"

func checkRootTables(r store.Root, have []byte, categories []string, mems []*memory.Memory) []Issue {
	path := filepath.Join(r.Dir, store.RootFile)
	if line := compile.ConflictLine(have, false); line > 0 {
		if _, err := compile.ResolveCompiledConflicts(have); err != nil {
			return []Issue{{SevError, "merge-conflict", r.Scope, path, line, "git conflict markers in hand-written text: resolve them by hand, then run `ocmem compile`"}}
		}
		return []Issue{{SevError, "merge-conflict", r.Scope, path, line, "git conflict markers in the compiled tables only: `ocmem compile` resolves them"}}
	}
	want, err := compile.Root(have, compile.Categories(categories, mems), mems)
	switch {
	case errors.Is(err, compile.ErrMarkers):
		return []Issue{{SevError, "root-stale", r.Scope, path, 0, err.Error()}}
	case err != nil:
		return []Issue{{SevError, "root-stale", r.Scope, path, 0, oneLine(err)}}
	case have == nil:
		if len(mems) == 0 {
			return nil
		}
		return []Issue{{SevError, "root-stale", r.Scope, path, 0, "ROOT.md is missing; run `ocmem compile`"}}
	case !bytes.Equal(have, want):
		return []Issue{{SevError, "root-stale", r.Scope, path, 0, "the directory registry or routing table is stale; run `ocmem compile`"}}
	}
	return nil
}

// checkLinks verifies supersedes / superseded_by. A project memory may
// supersede a global one (the link then crosses roots).
func checkLinks(r store.Root, files []*store.File, s *snapshot.Snapshot) []Issue {
	var out []Issue
	for _, f := range files {
		m := f.Memory
		if m.Supersedes != "" {
			old := s.Lookup(r.Scope, m.Supersedes)
			if old == nil && r.Scope == store.Project {
				old = s.Lookup(store.Global, m.Supersedes)
			}
			switch {
			case old == nil:
				out = append(out, Issue{SevError, "broken-link", r.Scope, f.Path, m.Line("supersedes"), fmt.Sprintf("supersedes %s, which does not exist", m.Supersedes)})
			// A rule proposal marks what it replaces only when accepted.
			case old.Scope == r.Scope && old.Memory.SupersededBy != m.ID && m.Kind != memory.KindRuleProposal:
				out = append(out, Issue{SevWarning, "broken-link", r.Scope, f.Path, m.Line("supersedes"), fmt.Sprintf("supersedes %s, but its superseded_by is %q", m.Supersedes, old.Memory.SupersededBy)})
			}
		}
		if m.SupersededBy != "" {
			if s.Lookup(r.Scope, m.SupersededBy) == nil {
				out = append(out, Issue{SevError, "broken-link", r.Scope, f.Path, m.Line("superseded_by"), fmt.Sprintf("superseded_by %s, which does not exist", m.SupersededBy)})
			}
		}
	}
	return out
}

// checkDuplicates finds ids that differ only in case: one file on macOS and
// Windows, two on Linux, so a synced store would lose one.
func checkDuplicates(r store.Root, files []*store.File) []Issue {
	var out []Issue
	seen := map[string]string{}
	for _, f := range files {
		k := strings.ToLower(f.Memory.ID)
		if other, ok := seen[k]; ok {
			out = append(out, Issue{SevError, "duplicate-id", r.Scope, f.Path, 0, fmt.Sprintf("id %s collides with %s on case-insensitive file systems", f.Memory.ID, other)})
			continue
		}
		seen[k] = f.Memory.ID
	}
	return out
}

// minDuplicateBody is the shortest body (in bytes) whose repetition is
// worth a warning: "see above" twice is not a duplicate.
const minDuplicateBody = 40

// checkNearDuplicates warns about live memories of a root that say the same
// thing: the same summary (case and final punctuation aside), or the same
// body. Each is reported once, on the later file in path order, naming the
// earlier one. Remember refuses exact duplicates; these come from hand
// edits, merges and older stores.
func checkNearDuplicates(r store.Root, files []*store.File) []Issue {
	var out []Issue
	both, summaries, bodies := map[[2]string]string{}, map[string]string{}, map[string]string{}
	for _, f := range files {
		m := f.Memory
		if m.SupersededBy != "" {
			continue
		}
		sum := strings.TrimRight(strings.ToLower(compile.OneLine(m.Summary)), ".。!！ ")
		body := compile.OneLine(m.Body)
		msg := ""
		switch {
		case both[[2]string{sum, body}] != "":
			msg = fmt.Sprintf("says the same as %s (same summary and body)", both[[2]string{sum, body}])
		case summaries[sum] != "":
			msg = fmt.Sprintf("has the same summary as %s", summaries[sum])
		case len(body) >= minDuplicateBody && bodies[body] != "":
			msg = fmt.Sprintf("has the same body as %s", bodies[body])
		}
		if msg != "" {
			out = append(out, Issue{SevWarning, "near-duplicate", r.Scope, f.Path, 0, msg + "; forget one, or keep the newer and set supersedes"})
		}
		if both[[2]string{sum, body}] == "" {
			both[[2]string{sum, body}] = m.ID
		}
		if summaries[sum] == "" {
			summaries[sum] = m.ID
		}
		if len(body) >= minDuplicateBody && bodies[body] == "" {
			bodies[body] = m.ID
		}
	}
	return out
}

// ProblemIssue reports a file that did not load. One that holds git
// conflict markers says so: the parse error is their symptom.
func ProblemIssue(p store.Problem) Issue {
	if data, err := readSmall(p.Path); err == nil {
		if line := compile.ConflictLine(data, false); line > 0 {
			return Issue{SevError, "merge-conflict", p.Scope, p.Path, line, "git conflict markers (an unresolved merge): resolve them by hand; the file does not load until then (" + oneLine(p.Err) + ")"}
		}
	}
	return Issue{SevError, "unparsable", p.Scope, p.Path, p.Line, strings.Join(strings.Fields(p.Reason()), " ")}
}

// checkMemoryConflicts finds memories that loaded but hold git conflict
// markers in their body: a merge committed unresolved. Conflicts quoted in
// a fenced code block are examples, not conflicts.
func checkMemoryConflicts(r store.Root, files []*store.File) []Issue {
	var out []Issue
	for _, f := range files {
		if !strings.Contains(f.Memory.Body, "<<<<<<<") {
			continue
		}
		if line := compile.ConflictLine([]byte(f.Memory.Body), true); line > 0 {
			out = append(out, Issue{SevError, "merge-conflict", r.Scope, f.Path, bodyLine(f.Path, f.Memory.Body, bodyOffset(f.Memory.Body, line)), "git conflict markers in the body (an unresolved merge): resolve them by hand"})
		}
	}
	return out
}

// checkSecrets finds memories that hold a suspected secret: written by
// hand, or before the scanner knew its shape, so no write refused them.
// The secret is masked wherever the memory is shown, and stays in the file
// (and in git) until a person removes it: an error. The message names the
// field and the kind of secret, never any of it.
func checkSecrets(r store.Root, files []*store.File) []Issue {
	var out []Issue
	for _, f := range files {
		m := f.Memory
		err := secrets.CheckFields(
			secrets.Field{Name: "summary", Text: m.Summary},
			secrets.Field{Name: "highlight", Text: m.Highlight},
			secrets.Field{Name: "load_when", Text: strings.Join(m.LoadWhen, "\n")},
			secrets.Field{Name: "body", Text: m.Body},
		)
		var se *secrets.Error
		if !errors.As(err, &se) {
			continue
		}
		var kinds []string
		for _, fd := range se.Findings {
			k := fd.Desc + " in " + strings.TrimSuffix(fd.Field, " (read on into the next field)")
			if !contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		line := 0
		if fd := se.Findings[0]; strings.HasPrefix(fd.Field, "body") {
			line = bodyLine(f.Path, m.Body, bodyOffset(m.Body, fd.Line))
		} else if name := strings.Fields(fd.Field)[0]; name != "body" {
			line = m.Line(name)
		}
		out = append(out, Issue{SevError, "secret", r.Scope, f.Path, line,
			"possible secret: " + strings.Join(kinds, "; ") + "; it is masked wherever the memory is shown, but the file still holds it: remove it, refer to it by name (an environment variable or a vault entry), and rotate it if the file was ever committed"})
	}
	return out
}

// checkRootMDSecrets finds suspected secrets in a root's ROOT.md, as
// checkSecrets does in a memory: a person writes its hard rules and goals
// by hand, and no write of ocmem scans them. It names the line and the
// section (the heading above the line), never the secret.
func checkRootMDSecrets(r store.Root, rootMD []byte) []Issue {
	text := string(rootMD)
	fs := secrets.ScanAll(text)
	if len(fs) == 0 {
		return nil
	}
	lines := strings.Split(text, "\n")
	var kinds []string
	for _, fd := range fs {
		k := fd.Desc
		if title := sectionAt(lines, fd.Line); title != "" {
			k += " in " + title
		}
		if !contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return []Issue{{SevError, "secret", r.Scope, filepath.Join(r.Dir, store.RootFile), fs[0].Line,
		"possible secret: " + strings.Join(kinds, "; ") + "; it is masked wherever ROOT.md is shown, but the file still holds it: remove it, refer to it by name (an environment variable or a vault entry), and rotate it if the file was ever committed"}}
}

// sectionAt is the title of the Markdown heading nearest above a 1-based
// line, "" when there is none.
func sectionAt(lines []string, line int) string {
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if t := strings.TrimLeft(l, "#"); len(t) < len(l) && len(l)-len(t) <= 6 && strings.HasPrefix(t, " ") {
			return secrets.MaskLine(strings.TrimSpace(t))
		}
	}
	return ""
}

// bodyOffset returns the byte offset of a 1-based line of text.
func bodyOffset(text string, line int) int {
	off := 0
	for i := 1; i < line; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			break
		}
		off += j + 1
	}
	return off
}

// readSmall reads a file that may be a memory: regular, and no larger than
// a memory may be. A named pipe or a huge file among the problems must not
// block or fill memory.
func readSmall(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > memory.MaxFileSize {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, memory.MaxFileSize)
	}
	return os.ReadFile(path)
}

// checkEnforce reports the entries of enforce blocks left out of what
// their rule stops (memory.Memory.EnforceProblems): an error, since the
// person believes the rule binds a call it lets through.
func checkEnforce(r store.Root, files []*store.File) []Issue {
	var out []Issue
	for _, f := range files {
		for _, p := range f.Memory.EnforceProblems {
			out = append(out, Issue{SevError, "enforce", r.Scope, f.Path, p.Line, p.Err.Error() + "; the rule's text still applies, this guard does not"})
		}
	}
	return out
}
