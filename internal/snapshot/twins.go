package snapshot

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// Twins looks in a root of s for live memories that say what a new one
// says (whitespace aside): dup has its summary and body, sameSummary only
// its summary; each is an id or "". The memory the new one supersedes does
// not count: replacing it is what was asked.
func (s *Snapshot) Twins(scope store.Scope, summary, body, supersedes string) (dup, sameSummary string) {
	summary, body = sameText(summary), sameText(body)
	lo, hi := s.Span(scope)
	var scratch memory.Memory
	for i := lo; i < hi && dup == ""; i++ {
		// The summary alone first: of 100,000 memories, about none has it.
		if sum, ok := s.SummaryAt(i); ok && !sameTextAs(sum, summary) {
			continue
		}
		m := s.MemoryInto(i, &scratch)
		if m.SupersededBy != "" || m.ID == supersedes || !sameTextAs(m.Summary, summary) {
			continue
		}
		if sameTextAs(m.Body, body) {
			dup = m.ID
		} else if sameSummary == "" {
			sameSummary = m.ID
		}
	}
	return dup, sameSummary
}

// sameText folds runs of white space, so texts that differ only there
// compare equal.
func sameText(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameTextAs reports whether sameText(s) == canon, canon being what
// sameText returns, without allocating: a duplicate check compares every
// live memory of the root.
func sameTextAs(s, canon string) bool {
	if len(canon) > len(s) {
		return false
	}
	// Up to the first run of white space that is not one ' ' between
	// two words, sameText(s) is s without its leading space, byte for
	// byte; so where that differs from canon first, s must have white
	// space, or the two differ. Most texts differ from canon at once, in
	// a word (in CJK, a word may be the whole summary).
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	k := 0
	for k < len(s) && k < len(canon) && s[k] == canon[k] {
		k++
	}
	if k == len(s) {
		return k == len(canon)
	}
	if r, _ := utf8.DecodeRuneInString(s[k:]); !unicode.IsSpace(r) {
		return false
	}
	for first := true; ; first = false {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return canon == ""
		}
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			i = len(s)
		}
		if !first {
			if canon == "" || canon[0] != ' ' {
				return false
			}
			canon = canon[1:]
		}
		if !strings.HasPrefix(canon, s[:i]) {
			return false
		}
		canon, s = canon[i:], s[i:]
	}
}
