package index

import (
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/textseg"
)

// This file: where a term of a document came from. A word a memory holds
// only inside a command-line flag (the hard of git reset --hard) or a path
// (/var/log/…, src/train.py) names that flag or file, not the thing the word
// means: a translation of a message's word that the memory holds only that
// way is no evidence that the memory is about the word (internal/rank).
// The parts of an identifier are not counted so: an identifier is often
// what a memory is about (the table of el-table, in a memory on el-table's
// performance; docs/RETRIEVAL.md has the figures). So Analyze records such
// terms a second time, under Inside(term), with the same counts; a query
// term of a message never starts with the marker byte, so nothing else sees
// them, and they are not part of the vocabulary.

// insideMark starts the key of a term held only inside flags
// or paths. It sorts before every term a text can produce.
const insideMark = "\x00"

// Inside returns the key under which the documents that hold term only
// inside flags or paths are listed.
func Inside(term string) string { return insideMark + term }

// isInside reports whether a key is one Inside made.
func isInside(key string) bool { return strings.HasPrefix(key, insideMark) }

// Without returns the postings of list whose documents are not in out,
// both in document order; list itself when out is empty.
func Without(list, out []Posting) []Posting {
	if len(out) == 0 || len(list) == 0 {
		return list
	}
	kept := make([]Posting, 0, len(list))
	j := 0
	for _, p := range list {
		for j < len(out) && out[j].Doc < p.Doc {
			j++
		}
		if j < len(out) && out[j].Doc == p.Doc {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// insideToken reports whether token t of text s stands inside a flag or a
// path: a word right after a flag's dash (-f, --hard; a dash between two
// letters makes an identifier), or a segment of a path (a run holding a
// slash that starts with one, with ~ or ., or holds two slashes or a dot).
// Only words: an identifier is what it names, and CJK text is never a flag.
func insideToken(s string, t textseg.Token) bool {
	if t.Type != textseg.Word {
		return false
	}
	if t.Start > 0 && s[t.Start-1] == '-' && (t.Start == 1 || !isAlnum(s[t.Start-2])) {
		return true
	}
	start, end := t.Start, t.End
	for start > 0 && !isSpace(s[start-1]) {
		start--
	}
	for end < len(s) && !isSpace(s[end]) {
		end++
	}
	run := strings.TrimRight(strings.Trim(s[start:end], "`'\"()[]<>,;:"), ".")
	switch strings.Count(run, "/") {
	case 0:
		return false
	case 1:
		// and/or, origin/main read as words; src/train.py, /etc, ~/x as paths.
		return strings.ContainsAny(run[:1], "/~.") || strings.Contains(run, ".")
	}
	return true
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// insideTerms counts, among the keys of a sorted term table, those Inside
// made: they come first.
func insideTerms(f *frozen) int {
	return sort.Search(f.numTerms(), func(i int) bool { return !isInside(f.term(i)) })
}
