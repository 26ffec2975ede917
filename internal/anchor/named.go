package anchor

import (
	"bytes"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Named returns the anchors a memory's own text names, as the engine fills
// them on a write: paths (`internal/api/server.go`, src/x.go, go.mod) that
// exist in fsys, the project's worktree, and identifiers in backticks
// (`ListenPort()`, `api.ListenPort`, `Server_port`) that appear in one of
// those files, as "path#Symbol" in place of the file's own anchor. A name
// that exists nowhere is left out: an anchor must be true when written.
//
// Identifiers are looked for only in the files the text names, never across
// the whole worktree: a common word would anchor a memory to every file
// that uses it. At most MaxNamed anchors are returned, in the order the text
// first names them.
func Named(text string, fsys fs.FS) []string {
	var files []string // existing files, in order
	var dirs []string
	var syms []string
	addPath := func(p string) bool {
		a, err := Parse(p)
		if err != nil || a.Glob || a.Symbol != "" {
			return false
		}
		p = a.Path
		if !fs.ValidPath(p) || p == "." || slices.Contains(files, p) || slices.Contains(dirs, p) {
			return false
		}
		st, err := fs.Stat(fsys, p)
		switch {
		case err != nil:
			return false
		case st.IsDir():
			dirs = append(dirs, p)
		case st.Mode().IsRegular():
			files = append(files, p)
		}
		return true
	}
	for _, span := range backticked.FindAllStringSubmatch(text, -1) {
		s := strings.TrimSpace(span[1])
		if looksLikePath(s) && addPath(trimLineRef(s)) {
			continue
		}
		if sym, ok := identifier(s); ok && !slices.Contains(syms, sym) {
			syms = append(syms, sym)
		}
	}
	for _, tok := range bareToken.FindAllString(backticked.ReplaceAllString(text, " "), -1) {
		tok = strings.TrimRight(tok, ".,:;")
		if strings.Contains(tok, "/") || hasExtension(tok) {
			addPath(trimLineRef(tok))
		}
	}

	var out []string
	for _, f := range files {
		found := symbolsIn(fsys, f, syms)
		if len(found) == 0 {
			out = append(out, f)
		}
		for _, s := range found {
			out = append(out, f+"#"+s)
		}
	}
	out = append(out, dirs...)
	if len(out) > MaxNamed {
		out = out[:MaxNamed]
	}
	return out
}

// MaxNamed bounds the anchors Named returns: a memory that names more code
// than this is about no one part of it.
const MaxNamed = 16

// maxReadForSymbols bounds the bytes of one file read to find identifiers.
const maxReadForSymbols = 1 << 20

var (
	backticked = regexp.MustCompile("`([^`\n]{1,300})`")
	bareToken  = regexp.MustCompile(`[\p{L}\p{N}_./\-]+`)
	identRE    = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*(\(\))?$`)
	lineRef    = regexp.MustCompile(`:\d+(:\d+)?$`)
)

// trimLineRef drops a ":12" or ":12:3" position after a path.
func trimLineRef(s string) string { return lineRef.ReplaceAllString(s, "") }

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, " \t()") {
		return false
	}
	return strings.Contains(s, "/") || hasExtension(s)
}

// hasExtension reports a name with a short lower-case extension ("go.mod",
// "server.go"), which a qualified identifier ("api.ListenPort") lacks.
func hasExtension(s string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 || len(s)-i-1 > 8 {
		return false
	}
	for _, r := range s[i+1:] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// identifier returns the symbol a backticked span names: the last part of
// a dotted name, without a call's "()". A plain lower-case word (`make`,
// `go`) names a command as often as a symbol, so it counts only with "()"
// or a qualifier; a name with an upper-case letter or an underscore counts
// alone.
func identifier(s string) (string, bool) {
	if !identRE.MatchString(s) {
		return "", false
	}
	call := strings.HasSuffix(s, "()")
	s = strings.TrimSuffix(s, "()")
	dotted := strings.Contains(s, ".")
	last := s[strings.LastIndexByte(s, '.')+1:]
	if utf8.RuneCountInString(last) < 3 {
		return "", false
	}
	marked := strings.ContainsFunc(last, func(r rune) bool { return unicode.IsUpper(r) || r == '_' })
	if !call && !dotted && !marked {
		return "", false
	}
	return last, true
}

// symbolsIn returns the symbols of syms that appear in the file as words.
func symbolsIn(fsys fs.FS, name string, syms []string) []string {
	if len(syms) == 0 {
		return nil
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, maxReadForSymbols)
	n, _ := readFull(f, buf)
	var out []string
	for _, s := range syms {
		if ContainsWord(buf[:n], s) {
			out = append(out, s)
		}
	}
	return out
}

func readFull(f fs.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ContainsWord reports whether sym appears in text as a whole word: not
// preceded or followed by a letter, digit, "_" or "$". For a dotted symbol
// ("Server.ListenPort") its last part is looked for, as languages declare a
// method apart from its type. This is how a symbol anchor is checked: a
// textual match, not a parse of the language; a symbol that survives only
// in a comment still counts as present.
func ContainsWord(text []byte, sym string) bool {
	sym = sym[strings.LastIndexByte(sym, '.')+1:]
	if sym == "" {
		return false
	}
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte(sym))
		if i < 0 {
			return false
		}
		i += off
		end := i + len(sym)
		before, _ := utf8.DecodeLastRune(text[:i])
		after, _ := utf8.DecodeRune(text[end:])
		if (i == 0 || !isIdentRune(before)) && (end == len(text) || !isIdentRune(after)) {
			return true
		}
		off = i + 1
	}
}
