package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// TestProjectPinsKeepGlobalShare: a repository's 60 pinned memories do not
// push the user's global notes out of the outline; the global lines have
// first claim on half its room. Earlier versions listed the 60 pins and
// no global note.
func TestProjectPinsKeepGlobalShare(t *testing.T) {
	rs := newRoots(t)
	for i := range 5 {
		writeMemory(t, rs.global, &memory.Memory{ID: fmt.Sprintf("preferences/g%d", i), Kind: memory.KindPreference,
			Summary: fmt.Sprintf("GLOBAL-NOTE-%d answer in English", i), Created: 1, Updated: 1})
	}
	for i := range 60 {
		writeMemory(t, rs.project, &memory.Memory{ID: fmt.Sprintf("facts/p%02d", i), Kind: memory.KindFact, Pinned: true,
			Summary: fmt.Sprintf("PROJECT-PIN-%02d the build uses make and nothing else at all", i), Created: 2, Updated: 2})
	}
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }, Options: options.Options{MaxOutlineChars: 2000}})
	out := mustStable(t, e).Outline
	if n := strings.Count(out, "GLOBAL-NOTE-"); n != 5 {
		t.Errorf("%d of 5 global notes in the outline, want all:\n%s", n, out)
	}
	if n := strings.Count(out, "PROJECT-PIN-"); n == 0 || n == 60 {
		t.Errorf("%d of 60 project pins in the outline, want some, not all:\n%s", n, out)
	}
}
