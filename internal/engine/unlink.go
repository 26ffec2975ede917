package engine

import (
	"fmt"

	"github.com/ocmem/ocmem/internal/store"
)

// unlinkForgotten repairs, in root r, the supersede links that point at a
// memory about to be deleted from it. Left alone they dangle: inspect reports a
// broken link, and a memory whose replacement was deleted stays hidden
// behind a replacement that no longer exists. So a memory the deleted one
// had replaced (superseded_by it) is live again, and one that had replaced
// it (supersedes it) keeps no pointer to nothing. Only those lines of
// those files change (Format); a file that does not parse is not touched.
// The caller holds r's lock. It returns the ids made live again.
func (e *Engine) unlinkForgotten(r store.Root, id string) (restored []string, err error) {
	files, _, err := r.Load()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		m := f.Memory
		if m.ID == id || m.SupersededBy != id && m.Supersedes != id {
			continue
		}
		if m.SupersededBy == id {
			m.SupersededBy = ""
			restored = append(restored, m.ID)
		}
		if m.Supersedes == id {
			m.Supersedes = ""
		}
		if _, err := r.WriteFile(f.Rel, m.Format()); err != nil {
			return restored, fmt.Errorf("unlink %s: %w", m.ID, err)
		}
	}
	return restored, nil
}
