package guard

import (
	"errors"
	"path/filepath"
	"strings"
)

// ErrNoPath is returned by Paths for a file tool call that names no file:
// a caller that guards the tool stops it rather than let an unread call
// through.
var ErrNoPath = errors.New("the call names no file")

// pathKeys are the argument names the file tools give their file under:
// 1.x filePath, 2.x path, and the spellings of MCP and older tools.
var pathKeys = []string{"filePath", "path", "file_path", "filename", "file"}

// patchKeys hold a patch's text (apply_patch, patch).
var patchKeys = []string{"patchText", "patch_text", "patch", "input"}

// Paths returns the files a file tool call writes: its path argument, or
// every file a patch adds, updates, deletes or moves to.
func Paths(tool string, args map[string]any) ([]string, error) {
	var out []string
	for _, k := range pathKeys {
		if p, ok := args[k].(string); ok && p != "" {
			out = append(out, p)
		}
	}
	for _, k := range patchKeys {
		if t, ok := args[k].(string); ok {
			out = append(out, patchPaths(t)...)
		}
	}
	// multiedit and some patch tools list their edits.
	if edits, ok := args["edits"].([]any); ok {
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				for _, k := range pathKeys {
					if p, ok := m[k].(string); ok && p != "" {
						out = append(out, p)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, ErrNoPath
	}
	return out, nil
}

// patchPaths reads the files of a patch: OpenCode's envelope
// ("*** Update File: p", Add, Delete, "*** Move to: p") and a unified
// diff's "--- a/p" and "+++ b/p" lines.
func patchPaths(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(l, pre); ok {
				out = append(out, strings.TrimSpace(p))
			}
		}
		for _, pre := range []string{"--- a/", "+++ b/"} {
			if p, ok := strings.CutPrefix(l, pre); ok {
				if p, _, _ = strings.Cut(p, "\t"); strings.TrimSpace(p) != "" {
					out = append(out, strings.TrimSpace(p))
				}
			}
		}
	}
	return out
}

// pathSubject is a path in the forms a glob is matched against: relative
// to the root with forward slashes when it is inside the root, else
// absolute; as written with `.` and `..` resolved, and with symbolic links
// resolved as far as the path exists, so neither a `..` nor a link into a
// guarded folder gets past its guard.
func pathSubject(p, root, dir string) subject {
	if dir == "" {
		dir = root
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	s := subject{text: p, path: true}
	seen := map[string]bool{}
	add := func(abs, root string) {
		f := filepath.ToSlash(abs)
		if rel, err := filepath.Rel(root, abs); err == nil && root != "" && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			f = filepath.ToSlash(rel)
			if s.text == p {
				s.text = f
			}
		}
		if !seen[f] {
			seen[f] = true
			s.forms = append(s.forms, f)
		}
	}
	add(p, root)
	realRoot := resolve(root)
	add(resolve(p), realRoot)
	return s
}

// resolve resolves the symbolic links of the longest existing prefix of
// p.
func resolve(p string) string {
	if p == "" {
		return ""
	}
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// matchPath reports whether a path (relative to the project root, with
// forward slashes, or absolute outside it) matches a glob as gitignore
// reads one: `**` any run of folders, `*` any run within one name, `?`
// one character of a name. A glob without a slash matches a file's name
// at any depth (`*.lock`); one with a slash matches from the root
// (`dist/**`), or, when absolute, the absolute path.
func matchPath(glob, path string) bool {
	glob = filepath.ToSlash(strings.TrimSpace(glob))
	glob = strings.TrimPrefix(glob, "./")
	if glob == "*" || glob == "**" {
		return true
	}
	if !strings.Contains(strings.TrimSuffix(glob, "/"), "/") {
		glob = "**/" + glob
	}
	if strings.HasSuffix(glob, "/") {
		glob += "**" // a folder: everything in it
	}
	return globSegments(strings.Split(glob, "/"), strings.Split(path, "/"))
}

// globSegments matches path segments, `**` standing for any number of
// them (none included). It fills a table of which suffixes match, so
// many `**` cost a product of lengths, never an exponential.
func globSegments(g, p []string) bool {
	// ok[i][j]: g[i:] matches p[j:].
	ok := make([][]bool, len(g)+1)
	for i := range ok {
		ok[i] = make([]bool, len(p)+1)
	}
	ok[len(g)][len(p)] = true
	for i := len(g) - 1; i >= 0; i-- {
		for j := len(p); j >= 0; j-- {
			switch {
			case g[i] == "**":
				ok[i][j] = ok[i+1][j] || j < len(p) && ok[i][j+1]
			case j < len(p):
				ok[i][j] = ok[i+1][j+1] && segment(g[i], p[j])
			}
		}
	}
	return ok[0][0]
}

// segment matches one name against `*` and `?`.
func segment(g, name string) bool { return wildcard(g, name) }
