package inspect

import (
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// checkStaleness warns on memories that hold what must not sync
// (memory.SyncHazards). Superseded
// memories are skipped: they are never retrieved.
func checkStaleness(r store.Root, files []*store.File) []Issue {
	var out []Issue
	for _, f := range files {
		m := f.Memory
		if m.SupersededBy != "" {
			continue
		}
		for _, s := range memory.SyncHazards(m) {
			out = append(out, Issue{SevWarning, "sync-staleness", r.Scope, f.Path, fieldLine(f, s.Field, s.At),
				s.String() + ": " + s.Hint})
		}
	}
	return out
}

// fieldLine returns the file line of a finding: the line of its
// frontmatter key (Inspect loads fresh, so every memory has its key lines),
// or of the match in the body.
func fieldLine(f *store.File, field string, at int) int {
	if field == "body" {
		return bodyLine(f.Path, f.Memory.Body, at)
	}
	return f.Memory.Line(field)
}

// bodyLine returns the file line of a byte offset in a memory's body: the
// body is the file's tail, byte for byte. 0 when the file changed since.
func bodyLine(path, body string, at int) int {
	data, err := readSmall(path)
	if err != nil || !strings.HasSuffix(string(data), body) {
		return 0
	}
	start := len(data) - len(body)
	return 1 + strings.Count(string(data[:start+at]), "\n")
}
