package store

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// How a root stays friendly to git
//
// A root is meant to be committed (the global one in the user's config
// repository, .memory/ in the project's), so it carries two git files:
//
//   - .gitignore keeps what is local to one machine out of git: .state.json
//     changes on every recall and would conflict on every sync; the lock and
//     temp files are transient; caches are derived.
//   - .gitattributes makes the compiled files merge without conflict
//     markers. Every index.md is a pure function of its category's
//     frontmatter, so a union merge (both sides' lines kept) loses nothing
//     and the next compile rewrites it exactly. ROOT.md mixes a person's
//     text with compiled tables, so it goes to the "ocmem" merge driver that
//     `ocmem install` registers in the user's git config: it merges the
//     person's text like any text and merges the tables by meaning. Where
//     the driver is not configured (a teammate who never ran install) git
//     falls back to its text merge; a conflict inside the compiled tables
//     is then resolved by the next `ocmem compile` or write. Both files are
//     kept at LF (eol=lf): a Windows checkout with core.autocrlf would
//     otherwise hold CRLF bytes and show drift against what compile writes.
//
// ocmem's lines sit in a marked block. A file a person wrote gets the block
// appended once; a later ocmem that changes the block rewrites only the
// block; lines outside it are never touched. Reads never call this: they
// only create a missing file, so a recall changes no tracked file.

// GitattributesFile names the root's .gitattributes.
const GitattributesFile = ".gitattributes"

// The markers around ocmem's block in .gitignore and .gitattributes.
const (
	blockBegin = "# >>> ocmem"
	blockEnd   = "# <<< ocmem"
)

const gitignoreBlock = blockBegin + ` — local state, never synced (managed by ocmem: edit outside this block)
/.state.json
/.ocmem.lock
/.ocmem-cache/
.*.tmp
` + blockEnd + "\n"

const gitattributesBlock = blockBegin + ` — compiled files merge without conflicts (managed by ocmem: edit outside this block)
# Every index.md is generated from the memories: a union merge keeps both
# sides' lines and the next ocmem compile (or write) rewrites it exactly.
*/index.md merge=union text eol=lf
# ROOT.md: the ocmem merge driver (registered by ocmem install) merges the
# hand-written text like any text and merges the compiled tables; without
# it, git merges as text and ocmem compile repairs the compiled tables.
/ROOT.md merge=ocmem text eol=lf
` + blockEnd + "\n"

// legacyGit holds, per file, what earlier versions of ocmem wrote whole,
// without markers: such a file is replaced rather than appended to.
var legacyGit = map[string][]string{
	GitignoreFile: {"# Written by ocmem: local state, never synced.\n/.state.json\n/.ocmem.lock\n/.ocmem-cache/\n.*.tmp\n"},
	GitattributesFile: {"# Written by ocmem: compiled files are regenerated, so a union merge is safe.\n" +
		"*/index.md merge=union\n"},
}

// GitFiles returns the git files a root holds and ocmem's block in each,
// for doctor-style checks and documentation.
func GitFiles() map[string]string {
	return map[string]string{GitignoreFile: gitignoreBlock, GitattributesFile: gitattributesBlock}
}

// maxGitFileSize bounds the .gitignore and .gitattributes a write reads to
// add ocmem's block. A cloned repository controls them: read whole, a
// 2 GiB .gitattributes took 42 s and 10 GB of memory on every write, and
// was then written again. A person's git file is a few kilobytes; one over
// the limit is left as it is, without ocmem's block.
const maxGitFileSize = 1 << 20

// ensureGitFiles gives the root its .gitignore and .gitattributes. A
// missing file is created. With update, an existing file also gets ocmem's
// block: appended when absent, rewritten in place when outdated. A file that
// is not a regular file (a symlink into a dotfiles repository) or is larger
// than maxGitFileSize is left alone.
func (r Root) ensureGitFiles(update bool) error {
	for _, name := range []string{GitignoreFile, GitattributesFile} {
		p := filepath.Join(r.Dir, name)
		info, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := writeAtomic(p, []byte(GitFiles()[name])); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		case !update || !info.Mode().IsRegular() || info.Size() > maxGitFileSize:
			continue
		}
		old, info, err := readRegular(p, maxGitFileSize)
		if err != nil && info != nil {
			continue // swapped for a FIFO, or over the limit: not ours to read
		}
		if err != nil {
			return err
		}
		if data := withBlock(name, old); !bytes.Equal(data, old) {
			if err := writeAtomic(p, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// withBlock returns a git file's content with ocmem's current block in it.
func withBlock(name string, old []byte) []byte {
	block := GitFiles()[name]
	for _, legacy := range legacyGit[name] {
		if string(old) == legacy {
			return []byte(block)
		}
	}
	text := string(old)
	if bi := markerLine(text, blockBegin, 0); bi >= 0 {
		if ei := markerLine(text, blockEnd, bi); ei >= 0 {
			end := ei + len(blockEnd)
			if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = len(text)
			}
			return []byte(text[:bi] + block + text[end:])
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return []byte(text + block)
}

// markerLine returns the offset of the first line at or after from that
// starts with marker, or -1.
func markerLine(text, marker string, from int) int {
	for i := from; i < len(text); {
		if strings.HasPrefix(text[i:], marker) {
			return i
		}
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return -1
		}
		i += nl + 1
	}
	return -1
}
