// Package mergedriver is ocmem's git merge driver for the files of a memory
// root (`ocmem merge-driver`, installed by `ocmem install` through
// .gitattributes and git config): ROOT.md merged by meaning
// (compile.MergeRoot), index.md by union, everything else as git merges
// text.
package mergedriver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/store"
)

// Name is the name .gitattributes gives the merge driver
// ("merge=ocmem"), and the git config section that defines it.
const Name = "ocmem"

// Command is the merge.ocmem.driver value for an ocmem binary:
// git replaces %O, %A, %B and %P with the base, ours (where the result
// goes) and theirs, and the path in the repository.
func Command(bin string) string {
	return shellQuote(bin) + " merge-driver %O %A %B %P"
}

// shellQuote quotes a word for the shell git runs a driver with (sh, also
// in Git for Windows), unless it needs none.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || bytes.ContainsRune([]byte("/._-+:=@%,"), r)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte("'"), []byte(`'\''`))) + "'"
}

// MergeFile is the git merge driver: it merges the three versions of the
// file at repoPath (base, ours, theirs are the paths git gives it) and
// writes the result over ours, as git wants. A root's ROOT.md gets
// compile.MergeRoot: the hand-written text merged like any text, the
// compiled tables merged by meaning. An index.md gets a union merge (what
// .gitattributes asks for without the driver; the next compile rewrites
// it). Anything else is merged as text. conflict reports conflict markers
// left in the result; git then marks the file conflicted.
func MergeFile(base, ours, theirs, repoPath string) (conflict bool, err error) {
	var data [3][]byte
	for i, p := range []string{base, ours, theirs} {
		if data[i], err = readBounded(p); err != nil {
			return false, err
		}
	}
	var merged []byte
	switch path.Base(filepath.ToSlash(repoPath)) {
	case store.RootFile:
		merged, conflict, err = compile.MergeRoot(data[0], data[1], data[2], gitMergeFile(false))
	case store.IndexFile:
		merged, conflict, err = gitMergeFile(true)(data[0], data[1], data[2])
	default:
		merged, conflict, err = gitMergeFile(false)(data[0], data[1], data[2])
	}
	if err != nil {
		return false, err
	}
	if err := os.WriteFile(ours, merged, 0o644); err != nil {
		return false, err
	}
	return conflict, nil
}

// readBounded reads one version git gives the driver. They are a
// repository's files, from any branch: one over store.MaxReadSize (the
// bound of every compiled file ocmem reads) is refused before a byte is
// read, and git leaves the file conflicted for a person, rather than the
// driver taking gigabytes into memory.
func readBounded(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > store.MaxReadSize {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit of a memory root's compiled file; merge it by hand", p, info.Size(), store.MaxReadSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, store.MaxReadSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > store.MaxReadSize {
		return nil, fmt.Errorf("%s grew past the %d-byte limit while being read; merge it by hand", p, store.MaxReadSize)
	}
	return data, nil
}

// gitMergeFile returns a compile.TextMerge that runs `git merge-file`: the
// driver runs under git, so git's own three-way text merge is at hand, and
// a person's text then merges exactly as git would merge it.
func gitMergeFile(union bool) compile.TextMerge {
	return func(base, ours, theirs []byte) ([]byte, bool, error) {
		dir, err := os.MkdirTemp("", "ocmem-merge-")
		if err != nil {
			return nil, false, err
		}
		defer os.RemoveAll(dir)
		names := []string{"ours", "base", "theirs"}
		for i, b := range [][]byte{ours, base, theirs} {
			if err := os.WriteFile(filepath.Join(dir, names[i]), b, 0o600); err != nil {
				return nil, false, err
			}
		}
		args := []string{"merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs"}
		if union {
			args = append(args, "--union")
		}
		cmd := exec.Command("git", append(args, names...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		// git merge-file exits with the number of conflicts (at most 127),
		// or a negative number on error.
		var ee *exec.ExitError
		switch {
		case err == nil:
			return out, false, nil
		case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
			return out, true, nil
		}
		return nil, false, fmt.Errorf("git merge-file: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
}
