// Command notices writes the part of NOTICE that lists the Go modules
// linked into the ocmem binary, each with its licence text, so that every
// copy of the binary carries the notices their licences (BSD, MIT, Apache)
// ask for.
//
//	go run ./tools/notices        # from the repository's root; rewrites NOTICE
//	go run ./tools/notices -check # exit 1 if NOTICE is not current
//
// The modules are those `go list -deps` finds for cmd/ocmem on every
// platform the release builds; the licence files are read from the module
// cache, where the build found them. Everything in NOTICE above the
// section's heading (the embedded data's works) is kept as it is.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// heading opens the generated section; NOTICE from it to the end is
// rewritten.
const heading = "Go modules linked into the ocmem binary"

const rule = "================================================================================"

// platforms are the GOOS values the release builds for; a module linked on
// one of them only (golang.org/x/sys/windows is in x/sys) is listed too.
var platforms = []string{"linux", "darwin", "windows"}

// licenceFile names the files of a module that carry its licence or its
// notices.
var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)(\.(md|txt))?$`)

func main() {
	check := flag.Bool("check", false, "report whether NOTICE is current; change nothing")
	flag.Parse()
	if err := run(".", *check); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(root string, check bool) error {
	path := filepath.Join(root, "NOTICE")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	mods, err := linked(root)
	if err != nil {
		return err
	}
	section, err := render(mods)
	if err != nil {
		return err
	}
	next := replaceSection(old, section)
	if check {
		if !bytes.Equal(old, next) {
			return errors.New("NOTICE does not list the linked modules as they are: run `go run ./tools/notices`")
		}
		return nil
	}
	if bytes.Equal(old, next) {
		return nil
	}
	return os.WriteFile(path, next, 0o644)
}

// module is one linked module and where its files are.
type module struct {
	Path, Version, Dir string
}

// linked lists the modules cmd/ocmem links on any platform, sorted by path,
// with the standard library first (Path "std", Dir GOROOT).
func linked(root string) ([]module, error) {
	seen := map[string]module{}
	for _, goos := range platforms {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}", "./cmd/ocmem")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list for %s: %w%s", goos, err, stderrOf(err))
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Split(strings.TrimRight(line, "\n"), "\t")
			if len(f) != 3 || f[1] == "" { // the main module has no version
				continue
			}
			seen[f[0]] = module{Path: f[0], Version: f[1], Dir: f[2]}
		}
	}
	mods := make([]module, 0, len(seen)+1)
	for _, m := range seen {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.Path, b.Path) })
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	std := module{Path: "std", Dir: strings.TrimSpace(string(goroot))}
	return append([]module{std}, mods...), nil
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}

// render is the generated section: a heading, then each module's name and
// its licence files' text.
func render(mods []module) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n\n", rule, heading, strings.Repeat("-", len(rule)))
	b.WriteString("The ocmem binary is built with Go and links the modules below. Their licences follow,\n" +
		"as each module ships them. This section is written by `go run ./tools/notices`.\n")
	for _, m := range mods {
		texts, err := licences(m.Dir)
		if err != nil {
			return nil, err
		}
		if len(texts) == 0 {
			return nil, fmt.Errorf("%s %s: no licence file in %s", m.Path, m.Version, m.Dir)
		}
		name := m.Path + " " + m.Version
		if m.Path == "std" {
			name = "The Go standard library and runtime (go.dev)"
		}
		fmt.Fprintf(&b, "\n%s\n%s\n%s\n", rule, name, strings.Repeat("-", len(rule)))
		for _, t := range texts {
			b.WriteString("\n")
			b.Write(t)
		}
	}
	return b.Bytes(), nil
}

// licences returns the text of a module's licence files at its root, by
// name, each ending in a newline.
func licences(dir string) ([][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var texts [][]byte
	for _, e := range entries {
		if e.IsDir() || !licenceFile.MatchString(e.Name()) {
			continue
		}
		t, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		t = bytes.ReplaceAll(t, []byte("\r\n"), []byte("\n"))
		t = append(bytes.TrimRight(t, "\n \t"), '\n')
		texts = append(texts, t)
	}
	return texts, nil
}

// replaceSection puts section in place of NOTICE's generated section, or
// after its last line when it has none.
func replaceSection(notice, section []byte) []byte {
	head := notice
	if i := bytes.Index(notice, []byte(rule+"\n"+heading+"\n")); i >= 0 {
		head = notice[:i]
	}
	head = append(bytes.TrimRight(head, "\n"), "\n\n"...)
	return append(slices.Clip(head), section...)
}
