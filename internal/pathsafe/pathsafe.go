// Package pathsafe is the one place that turns an id or a relative path from
// outside (a tool call, a CLI argument, a file name found on disk) into a path
// inside a memory root, refusing anything that would leave it.
//
//	p, err := pathsafe.Join(root, "pitfalls/sqlite-cjk-tokenizer.md")
//	if err != nil { /* refused: nothing to read, write or delete */ }
//
// Refused: empty names, NUL and control characters, backslashes (a separator
// on Windows), absolute paths, drive letters and UNC prefixes, "." and ".."
// elements, empty elements, names hidden with a leading dot, characters that
// Windows forbids in file names, reserved Windows device names, and any
// existing element that is a symlink resolving outside the root.
package pathsafe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrOutside is wrapped by every refusal, so callers can branch on it.
var ErrOutside = errors.New("path leaves the memory root")

// Error says which path was refused and why.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("refused path %q: %s", e.Path, e.Reason) }
func (e *Error) Unwrap() error { return ErrOutside }

// MaxLen bounds a relative path, well under every platform's limit once
// joined to a root.
const MaxLen = 512

// Check validates a slash-separated relative path without touching the disk.
func Check(rel string) error {
	refuse := func(reason string) error { return &Error{Path: rel, Reason: reason} }
	switch {
	case rel == "":
		return refuse("empty")
	case len(rel) > MaxLen:
		return refuse(fmt.Sprintf("longer than %d bytes", MaxLen))
	case !utf8.ValidString(rel):
		return refuse("not valid UTF-8")
	case strings.ContainsRune(rel, '\\'):
		return refuse("contains a backslash")
	case strings.HasPrefix(rel, "/"):
		return refuse("absolute")
	case len(rel) >= 2 && rel[1] == ':':
		return refuse("starts with a drive letter")
	case filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return refuse("absolute")
	}
	for _, r := range rel {
		if unicode.IsControl(r) { // C0, DEL and C1 (NEL, U+0085, is a YAML line break)
			return refuse("contains a control character")
		}
		if strings.ContainsRune(`:*?"<>|`, r) {
			return refuse(fmt.Sprintf("contains %q, which Windows forbids in file names", r))
		}
	}
	for _, elem := range strings.Split(rel, "/") {
		switch {
		case elem == "":
			return refuse("has an empty element")
		case elem == "." || elem == "..":
			return refuse(fmt.Sprintf("has a %q element", elem))
		case strings.HasPrefix(elem, "."):
			return refuse("has a hidden (dot) element")
		case strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " "):
			return refuse("has an element ending in a dot or space, which Windows strips")
		case reservedOnWindows(elem):
			return refuse(fmt.Sprintf("has %q, a reserved device name on Windows", elem))
		}
	}
	return nil
}

// reservedOnWindows reports whether Windows opens a device instead of a file
// for elem: the name before the first dot, without trailing spaces (Windows
// drops them), is one of the reserved names in any letter case. The list is
// Microsoft's ("Naming Files, Paths, and Namespaces"): it counts the
// superscript digits ¹ ² ³ as digits for COM and LPT, and CONIN$ and CONOUT$
// open the console.
func reservedOnWindows(elem string) bool {
	base, _, _ := strings.Cut(elem, ".")
	upper := strings.ToUpper(strings.TrimRight(base, " "))
	switch upper {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(upper) < 4 || upper[:3] != "COM" && upper[:3] != "LPT" {
		return false
	}
	switch upper[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
		return true
	}
	return false
}

// Join checks rel and returns root joined with it. Elements of the result
// that exist on disk are resolved: a symlink anywhere along the way must stay
// inside the root (resolved the same way), or the path is refused.
func Join(root, rel string) (string, error) {
	if err := Check(rel); err != nil {
		return "", err
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := Inside(root, p); err != nil {
		return "", &Error{Path: rel, Reason: err.Error()}
	}
	return p, nil
}

// Inside reports an error unless path p, with symlinks in its existing part
// resolved, lies within root (also resolved). A root that does not exist yet
// contains nothing that could escape it.
func Inside(root, p string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("resolve root: %w", err)
	}
	// Resolve the longest existing prefix of p.
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return fmt.Errorf("a symlink that cannot be resolved: %v", err)
	}
	real = filepath.Join(real, rest)
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return errors.New("a symlink leads outside the root")
	}
	return nil
}
