// Command release builds an ocmem release: static binaries for each
// platform, the npm packages OpenCode installs a plugin from, archives for
// people who download a binary, and their checksums.
//
//	go run ./tools/release -version 0.1.0 -out /tmp/rel                       # all six platforms
//	go run ./tools/release -version 0.1.0 -out /tmp/rel -platforms linux-x64   # just one
//
// It writes, under -out:
//
//	npm/ocmem-V.tgz                the main package: plugin.js, bin/ocmem.js, LICENSE, optionalDependencies
//	npm/ocmem-<platform>-V.tgz     one per platform: bin/ocmem (bin/ocmem.exe), LICENSE and NOTICE, os and cpu set
//	ocmem_V_<goos>_<goarch>.tar.gz the binary, README.md, LICENSE and NOTICE (.zip for Windows)
//	SHA256SUMS                     sha256sum -c format, for every file above
//
// Platforms are named as Node spells process.platform and process.arch
// (linux-x64, darwin-arm64, win32-x64, …), so the plugin finds its package
// by template. Binaries are built with CGO_ENABLED=0 and -trimpath, and
// `ocmem version` prints V. Every archive is written by this tool with fixed
// times, owners and order: the same commit and version give the same bytes.
// See RELEASING.md for publishing.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// platform is one release target.
type platform struct {
	Node   string // process.platform-process.arch: the npm package suffix
	OS     string // process.platform, for package.json "os"
	Arch   string // process.arch, for package.json "cpu"
	GOOS   string
	GOARCH string
}

// platforms is every target, in release order.
var platforms = []platform{
	{"linux-x64", "linux", "x64", "linux", "amd64"},
	{"linux-arm64", "linux", "arm64", "linux", "arm64"},
	{"darwin-x64", "darwin", "x64", "darwin", "amd64"},
	{"darwin-arm64", "darwin", "arm64", "darwin", "arm64"},
	{"win32-x64", "win32", "x64", "windows", "amd64"},
	{"win32-arm64", "win32", "arm64", "windows", "arm64"},
}

// exe is the binary's file name on the platform.
func (p platform) exe() string {
	if p.GOOS == "windows" {
		return "ocmem.exe"
	}
	return "ocmem"
}

// hostPlatform is the platform this tool runs on, "" if it is not a target.
func hostPlatform() string {
	for _, p := range platforms {
		if p.GOOS == runtime.GOOS && p.GOARCH == runtime.GOARCH {
			return p.Node
		}
	}
	return ""
}

// parsePlatforms reads the -platforms list: comma-separated names, "host"
// for this machine's, empty for all. The result keeps release order.
func parsePlatforms(list string) ([]platform, error) {
	if strings.TrimSpace(list) == "" {
		return slices.Clone(platforms), nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "host" {
			if name = hostPlatform(); name == "" {
				return nil, fmt.Errorf("this machine (%s/%s) is not a release platform", runtime.GOOS, runtime.GOARCH)
			}
		}
		if !slices.ContainsFunc(platforms, func(p platform) bool { return p.Node == name }) {
			return nil, fmt.Errorf("unknown platform %q (known: %s, host)", name, strings.Join(platformNames(), ", "))
		}
		want[name] = true
	}
	var out []platform
	for _, p := range platforms {
		if want[p.Node] {
			out = append(out, p)
		}
	}
	return out, nil
}

func platformNames() []string {
	var names []string
	for _, p := range platforms {
		names = append(names, p.Node)
	}
	return names
}

// semverRE is a SemVer 2.0 version without build metadata (npm drops it).
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?$`)

func checkVersion(v string) error {
	switch {
	case v == "":
		return errors.New("-version is required, e.g. -version 0.1.0")
	case strings.HasPrefix(v, "v"):
		return fmt.Errorf("-version %q: give it without the leading v (the git tag is v%s)", v, strings.TrimPrefix(v, "v"))
	case !semverRE.MatchString(v):
		return fmt.Errorf("-version %q is not a semantic version like 1.2.3 or 1.2.3-rc.1", v)
	}
	return nil
}

func main() {
	version := flag.String("version", "", "the version to stamp and publish, e.g. 0.1.0 (required)")
	out := flag.String("out", "", "output folder (required); created, or emptied of an earlier release's files")
	list := flag.String("platforms", "", "comma-separated platforms to build, or host (default: all of "+strings.Join(platformNames(), ",")+")")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./tools/release -version V -out DIR [-platforms linux-x64,…]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := checkVersion(*version); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(2)
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "release: -out is required")
		os.Exit(2)
	}
	plats, err := parsePlatforms(*list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(2)
	}
	start := time.Now()
	files, err := release(context.Background(), *version, *out, plats, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(filepath.Join(*out, filepath.FromSlash(f)))
	}
	fmt.Fprintf(os.Stderr, "release: %d platform(s) in %v\n", len(plats), time.Since(start).Round(100*time.Millisecond))
	if len(plats) < len(platforms) {
		fmt.Fprintf(os.Stderr, "release: npm/ocmem-%s.tgz depends on these platforms only: a test build, not one to publish (RELEASING.md)\n", *version)
	}
}

// release builds and writes everything; it returns the files written,
// relative to out, slash-separated: those SHA256SUMS lists, then SHA256SUMS.
func release(ctx context.Context, version, out string, plats []platform, progress io.Writer) ([]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	if err := prepareOut(out); err != nil {
		return nil, err
	}
	build, err := os.MkdirTemp("", "ocmem-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(build)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	notice, err := os.ReadFile(filepath.Join(root, "NOTICE"))
	if err != nil {
		return nil, err
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return nil, err
	}
	mtime := commitTime(ctx, root)

	var written []string
	write := func(rel string, data []byte) error {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	}
	for _, p := range plats {
		fmt.Fprintf(progress, "release: building %s (GOOS=%s GOARCH=%s)\n", p.Node, p.GOOS, p.GOARCH)
		bin := filepath.Join(build, p.Node, p.exe())
		if err := goBuild(ctx, root, version, p, bin); err != nil {
			return nil, err
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		if p.Node == hostPlatform() {
			if err := checkStamp(ctx, bin, version); err != nil {
				return nil, err
			}
		}
		tgz, err := platformPackage(version, p, exe, license, notice)
		if err != nil {
			return nil, err
		}
		if err := write("npm/"+packageName(p)+"-"+version+".tgz", tgz); err != nil {
			return nil, err
		}
		name, archive, err := binaryArchive(version, p, exe, readme, license, notice, mtime)
		if err != nil {
			return nil, err
		}
		if err := write(name, archive); err != nil {
			return nil, err
		}
	}
	main, err := mainPackage(version, plats, license)
	if err != nil {
		return nil, err
	}
	if err := write("npm/ocmem-"+version+".tgz", main); err != nil {
		return nil, err
	}
	slices.Sort(written)
	var sums bytes.Buffer
	for _, rel := range written {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), rel)
	}
	if err := write("SHA256SUMS", sums.Bytes()); err != nil {
		return nil, err
	}
	return written, nil
}

// goBuild builds ./cmd/ocmem for p: static, without local paths, stamped.
func goBuild(ctx context.Context, root, version string, p platform, dst string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.version="+version, "-o", dst, "./cmd/ocmem")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", p.Node, err, out)
	}
	return nil
}

// checkStamp runs a binary built for this machine and checks that it
// reports the release version.
func checkStamp(ctx context.Context, bin, version string) error {
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %w", bin, err)
	}
	if got, want := strings.TrimSpace(string(out)), "ocmem "+version; got != want {
		return fmt.Errorf("%s version printed %q, want %q", bin, got, want)
	}
	return nil
}

// commitTime is the time of the commit checked out in root, the date of
// the archives' files; fixedTime outside a git checkout.
func commitTime(ctx context.Context, root string) time.Time {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "log", "-1", "--format=%ct", "HEAD").Output()
	if err != nil {
		return fixedTime
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil || sec <= 0 {
		return fixedTime
	}
	return time.Unix(sec, 0).UTC()
}

// moduleRoot is the folder of ocmem's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the release tool inside the ocmem module (go run ./tools/release …)")
	}
	return filepath.Dir(mod), nil
}

// isOutput reports whether a path (relative to -out, slash-separated)
// is one this tool writes, of any version.
func isOutput(rel string) bool {
	switch {
	case rel == "SHA256SUMS", rel == "npm":
		return true
	case strings.HasPrefix(rel, "npm/"):
		name := strings.TrimPrefix(rel, "npm/")
		return strings.HasPrefix(name, "ocmem-") && strings.HasSuffix(name, ".tgz") && !strings.Contains(name, "/")
	default:
		return strings.HasPrefix(rel, "ocmem_") && (strings.HasSuffix(rel, ".tar.gz") || strings.HasSuffix(rel, ".zip")) && !strings.Contains(rel, "/")
	}
}

// prepareOut creates out, or removes an earlier release's files from it. A
// folder holding anything else is refused, and nothing in it is touched.
func prepareOut(out string) error {
	var ours []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == out {
			return nil
		}
		rel, err := filepath.Rel(out, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !isOutput(rel) || (d.IsDir() && rel != "npm") || (!d.IsDir() && rel == "npm") {
			return fmt.Errorf("%s holds %s, which the release tool did not write: give an empty or new folder", out, rel)
		}
		ours = append(ours, p)
		return nil
	})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(out, 0o755)
	case err != nil:
		return err
	}
	slices.Reverse(ours) // files before their folder
	for _, p := range ours {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}
