package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
)

// GitView is what git says of a root: which of its memory files differ
// from HEAD, and what HEAD holds of them. Outside a repository with a
// commit, or without git, it knows nothing (InGit is false): every file
// then counts as untracked.
type GitView struct {
	dir    string
	inGit  bool
	prefix string          // the root's path inside the repository, "" or "sub/dir/"
	differ map[string]bool // root-relative memory files that differ from HEAD
}

// OpenGitView asks git about the root at dir.
func OpenGitView(ctx context.Context, dir string) *GitView {
	g := &GitView{dir: dir}
	if _, err := exec.LookPath("git"); err != nil {
		return g
	}
	out, err := g.git(ctx, nil, "rev-parse", "--show-prefix", "--verify", "HEAD")
	if err != nil {
		return g
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return g
	}
	out, err = g.git(ctx, nil, "diff", "--name-only", "--relative", "--no-renames", "-z", "HEAD", "--", ".")
	if err != nil {
		return g
	}
	g.inGit, g.prefix, g.differ = true, lines[0], map[string]bool{}
	for _, rel := range strings.Split(string(out), "\x00") {
		if strings.Count(rel, "/") == 1 && strings.HasSuffix(rel, ".md") && !strings.HasSuffix(rel, "/"+IndexFile) && !strings.Contains(rel, "/.") {
			g.differ[rel] = true
		}
	}
	return g
}

// InGit reports whether git could say what it holds of the root.
func (g *GitView) InGit() bool { return g.inGit }

// Differ returns the root-relative memory files that differ from HEAD.
func (g *GitView) Differ() map[string]bool { return g.differ }

// Differs reports whether a memory file differs from HEAD.
func (g *GitView) Differs(rel string) bool { return g.differ[rel] }

// InsideRepository reports whether dir is in a git work tree, by the
// .git of a folder above it, without git.
func InsideRepository(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(d)
		if up == d {
			return false
		}
		d = up
	}
}

func (g *GitView) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotePath=false", "--literal-pathspecs"}, args...)...)
	cmd.Dir = g.dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// Heads returns the memory each of rels holds at HEAD, for the files HEAD
// has: one git cat-file for them all. A version at HEAD that does not
// parse counts as none.
func (g *GitView) Heads(ctx context.Context, rels []string) (map[string]*memory.Memory, error) {
	out := map[string]*memory.Memory{}
	if !g.inGit || len(rels) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, rel := range rels {
		in.WriteString("HEAD:" + g.prefix + rel + "\n")
	}
	res, err := g.git(ctx, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	return parseBatch(res, rels)
}

// parseBatch reads git cat-file --batch's answers, one for each of rels:
// "<oid> blob <size>\n<content>\n", or "<name> missing\n" (or another
// one-line answer) for a path HEAD does not have as a file.
func parseBatch(res []byte, rels []string) (map[string]*memory.Memory, error) {
	out := map[string]*memory.Memory{}
	for _, rel := range rels {
		header, rest, ok := bytes.Cut(res, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("git cat-file: no answer for %s", rel)
		}
		res = rest
		f := strings.Fields(string(header))
		if len(f) != 3 || f[1] != "blob" {
			continue // missing, or not a file
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size >= len(res) || res[size] != '\n' {
			return nil, fmt.Errorf("git cat-file: %q for %s", header, rel)
		}
		data := res[:size]
		res = res[size+1:]
		// A version at HEAD that does not parse is tracked all the same.
		m, err := memory.Parse(data)
		if err != nil {
			m = nil
		}
		out[rel] = m
	}
	return out, nil
}
