package anchor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// What counts as formatting
//
// FormattingOnly tells whether a file changed since a commit only in ways
// that cannot change what it says, so that a memory about it can be
// verified without a person reading the diff. The rule is narrow on
// purpose; anything it does not name is a change:
//
//   - a text file: line ends (CRLF or LF), spaces and tabs at the end of a
//     line (and a stray carriage return there), blank lines at the end of
//     the file and its last line end;
//   - a Go file: equal after gofmt (go/format.Source) of both versions,
//     which keeps comments, so a changed comment is a change (a memory may
//     be about what a comment says); where either version does not parse,
//     the text rule;
//   - a Markdown file (.md, .markdown): only an exact match, since two
//     spaces at a line's end are a line break there;
//   - a file holding a NUL byte (binary): only an exact match.
//
// The old version is read from the commit itself (git cat-file), never
// judged from a digest: a digest tells that a file changed, not how.

// FormattingOnly reports whether the file p (slash-separated, relative to
// root, the project root) is the same in the worktree as at commit but for
// formatting. When it is not, why says so in one line: what differs, the
// file deleted, or the commit's version not readable here.
func FormattingOnly(ctx context.Context, root, commit, p string) (ok bool, why string) {
	clean := path.Clean(p)
	switch {
	case p == "" || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") ||
		strings.Contains(p, `\`) || hasVolume(p):
		return false, fmt.Sprintf("%q is not a path inside the project", p)
	case !isHexID(commit):
		return false, fmt.Sprintf("%s: no commit to compare with (%q)", clean, commit)
	}
	full := filepath.Join(root, filepath.FromSlash(clean))
	// A link is compared as what git stores, its target, never followed.
	st, err := os.Lstat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, clean + " was deleted"
	case err != nil:
		return false, fmt.Sprintf("%s cannot be read: %v", clean, err)
	case !st.Mode().IsRegular():
		return false, clean + " is not a regular file now"
	}
	now, err := os.ReadFile(full)
	if err != nil {
		return false, fmt.Sprintf("%s cannot be read: %v", clean, err)
	}
	old, err := showAt(ctx, root, commit, clean)
	if err != nil {
		return false, fmt.Sprintf("%s as of %s cannot be read here: %v", clean, short(commit), err)
	}
	if bytes.Equal(old, now) {
		return true, ""
	}
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(now, 0) >= 0 {
		return false, clean + " is binary and its bytes changed"
	}
	switch strings.ToLower(path.Ext(clean)) {
	case ".md", ".markdown":
		return false, clean + " changed (Markdown: trailing spaces are a line break, so only an exact match counts)"
	case ".go":
		fo, errOld := format.Source(old)
		fn, errNow := format.Source(now)
		if errOld == nil && errNow == nil {
			if bytes.Equal(fo, fn) {
				return true, ""
			}
			return false, clean + " changed in more than gofmt formatting"
		}
	}
	if bytes.Equal(normalText(old), normalText(now)) {
		return true, ""
	}
	return false, clean + " changed in more than line ends and trailing white space"
}

// normalText is text with the carriage returns, spaces and tabs at each
// line's end dropped (so CRLF line ends become LF), and the blank lines
// and line ends at the end of the file dropped. A carriage return inside
// a line stays.
func normalText(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " \t\r")
	}
	return bytes.TrimRight(bytes.Join(lines, []byte("\n")), "\n")
}

// showAt is the file p as it was at commit, read from the repository
// around root; "./" makes p relative to root, which may lie below the
// repository's top.
func showAt(ctx context.Context, root, commit, p string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "blob", commit+":./"+p)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			return nil, fmt.Errorf("%s", firstLine(string(msg)))
		}
		return nil, err
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func short(commit string) string { return commit[:min(12, len(commit))] }
