package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/plugin"
)

func TestCheckVersion(t *testing.T) {
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"0.1.0", true},
		{"1.18.33", true},
		{"0.0.0-ci", true},
		{"1.2.3-rc.1", true},
		{"1.2.3-0.a-b", true},
		{"", false},
		{"v0.1.0", false},
		{"0.1", false},
		{"01.2.3", false},
		{"1.2.3-", false},
		{"1.2.3-01", false},
		{"1.2.3+build", false},
		{"1.2.3 ", false},
		{"1.2.3/../x", false},
	} {
		if err := checkVersion(c.v); (err == nil) != c.ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", c.v, err, c.ok)
		}
	}
}

func TestParsePlatforms(t *testing.T) {
	names := func(ps []platform) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.Node)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct{ in, want, err string }{
		{"", "linux-x64,linux-arm64,darwin-x64,darwin-arm64,win32-x64,win32-arm64", ""},
		{"win32-x64, linux-x64", "linux-x64,win32-x64", ""},
		{"linux-x64,linux-x64", "linux-x64", ""},
		{"linux-amd64", "", `unknown platform "linux-amd64"`},
		{"windows-x64", "", `unknown platform "windows-x64"`},
	} {
		got, err := parsePlatforms(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
		case err != nil || names(got) != c.want:
			t.Errorf("%q: %s, %v; want %s", c.in, names(got), err, c.want)
		}
	}
	if h := hostPlatform(); h != "" {
		if got, err := parsePlatforms("host"); err != nil || names(got) != h {
			t.Errorf("host: %s, %v; want %s", names(got), err, h)
		}
	}
}

// TestPrepareOut: an earlier release's files are cleared, anything else
// makes the tool refuse and stay its hand.
func TestPrepareOut(t *testing.T) {
	dir := t.TempDir()
	put := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"SHA256SUMS", "npm/ocmem-0.1.0.tgz", "npm/ocmem-linux-x64-0.1.0.tgz", "ocmem_0.1.0_linux_amd64.tar.gz", "ocmem_0.1.0_windows_amd64.zip"} {
		put(rel)
	}
	if err := prepareOut(dir); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	for _, foreign := range []string{"notes.txt", "npm/other.tgz", "npm/sub/ocmem-x.tgz"} {
		dir := t.TempDir()
		put := func(rel string) {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("x"), 0o644)
		}
		put("SHA256SUMS")
		put(foreign)
		if err := prepareOut(dir); err == nil || !strings.Contains(err.Error(), "did not write") {
			t.Errorf("%s: err %v", foreign, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "SHA256SUMS")); err != nil {
			t.Errorf("%s: a refused folder lost a file: %v", foreign, err)
		}
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if err := prepareOut(fresh); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(fresh); err != nil || !st.IsDir() {
		t.Errorf("not created: %v", err)
	}
}

type entry struct {
	name  string
	mode  fs.FileMode
	mtime time.Time
	data  []byte
}

func readTarGz(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header has time %v, name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: type %c, owner %d:%d %q:%q", h.Name, h.Typeflag, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h.Name, fs.FileMode(h.Mode), h.ModTime, b})
	}
}

func TestTarGzDeterministic(t *testing.T) {
	files := func() []file {
		return []file{{"package.json", 0o644, []byte("{}\n")}, {"bin/ocmem", 0o755, []byte("\x7fELF")}}
	}
	a, err := npmTarball(files())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := npmTarball(files())
	if !bytes.Equal(a, b) {
		t.Error("two tarballs of the same files differ")
	}
	got := readTarGz(t, a)
	want := []entry{{"package/package.json", 0o644, fixedTime, []byte("{}\n")}, {"package/bin/ocmem", 0o755, fixedTime, []byte("\x7fELF")}}
	if len(got) != len(want) {
		t.Fatalf("%d entries", len(got))
	}
	for i := range want {
		if got[i].name != want[i].name || got[i].mode != want[i].mode || !got[i].mtime.Equal(want[i].mtime) || !bytes.Equal(got[i].data, want[i].data) {
			t.Errorf("entry %d = %s %v %v, want %s %v %v", i, got[i].name, got[i].mode, got[i].mtime, want[i].name, want[i].mode, want[i].mtime)
		}
	}
}

// TestRelease builds this machine's platform with the real tool, twice,
// and checks what it wrote: the same bytes both times, checksums that
// verify, npm packages with the fields npm and OpenCode read, the binary
// executable and stamped, and the download archive.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ocmem")
	}
	host := hostPlatform()
	if host == "" {
		t.Skipf("%s/%s is not a release platform", runtime.GOOS, runtime.GOARCH)
	}
	plats, _ := parsePlatforms(host)
	p := plats[0]
	const version = "0.0.0-test.1"
	out := filepath.Join(t.TempDir(), "rel")
	files, err := release(context.Background(), version, out, plats, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	archive := "ocmem_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	if runtime.GOOS == "windows" {
		archive = strings.TrimSuffix(archive, ".tar.gz") + ".zip"
	}
	wantFiles := []string{"npm/ocmem-" + version + ".tgz", "npm/ocmem-" + host + "-" + version + ".tgz", archive}
	slices.Sort(wantFiles)
	if !slices.Equal(files, append(slices.Clone(wantFiles), "SHA256SUMS")) {
		t.Fatalf("wrote %v, want %v", files, wantFiles)
	}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	// SHA256SUMS lists every file with its digest.
	sc := bufio.NewScanner(bytes.NewReader(read("SHA256SUMS")))
	var listed []string
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		h := sha256.Sum256(read(name))
		if !ok || sum != hex.EncodeToString(h[:]) {
			t.Errorf("SHA256SUMS line %q does not match the file", sc.Text())
		}
		listed = append(listed, name)
	}
	if !slices.Equal(listed, wantFiles) {
		t.Errorf("SHA256SUMS lists %v", listed)
	}

	// The main package.
	main := readTarGz(t, read("npm/ocmem-"+version+".tgz"))
	byName := map[string]entry{}
	for _, e := range main {
		byName[e.name] = e
	}
	if main[0].name != "package/package.json" {
		t.Errorf("first entry %s, want package/package.json", main[0].name)
	}
	if e := byName["package/plugin.js"]; !bytes.Equal(e.data, plugin.Source) {
		t.Error("plugin.js is not the plugin as shipped")
	}
	if e := byName["package/tui.js"]; !bytes.Equal(e.data, plugin.TUISource) {
		t.Error("tui.js is not the TUI entry as shipped")
	}
	if e := byName["package/bin/ocmem.js"]; e.mode != 0o755 || !bytes.HasPrefix(e.data, []byte("#!/usr/bin/env node\n")) {
		t.Errorf("bin/ocmem.js: mode %v", e.mode)
	}
	var pj struct {
		Name, Version, Main, Type string
		License                   string
		Exports                   map[string]string
		Bin                       map[string]string
		Engines                   map[string]string
		OptionalDependencies      map[string]string
		Files                     []string
	}
	if err := json.Unmarshal(byName["package/package.json"].data, &pj); err != nil {
		t.Fatal(err)
	}
	if pj.Name != "ocmem" || pj.Version != version || pj.Type != "module" || pj.Main != "./plugin.js" ||
		pj.Exports["./server"] != "./plugin.js" || pj.Exports["./tui"] != "./tui.js" || pj.Bin["ocmem"] != "bin/ocmem.js" || pj.Engines["opencode"] != opencodeRange ||
		pj.License != "MIT" {
		t.Errorf("package.json: %+v", pj)
	}
	if len(pj.OptionalDependencies) != 1 || pj.OptionalDependencies["ocmem-"+host] != version {
		t.Errorf("optionalDependencies %v, want exactly ocmem-%s: %s", pj.OptionalDependencies, host, version)
	}
	for _, f := range pj.Files {
		if _, ok := byName["package/"+f]; !ok {
			t.Errorf("files names %s, which is not packed", f)
		}
	}

	// ocmem's own licence goes with every package and archive.
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if e := byName["package/LICENSE"]; !bytes.Equal(e.data, license) {
		t.Error("the main package's LICENSE is not the repository's LICENSE")
	}

	// The platform package: the binary, executable, with os and cpu.
	plat := readTarGz(t, read("npm/ocmem-"+host+"-"+version+".tgz"))
	if len(plat) != 4 || plat[0].name != "package/package.json" || plat[1].name != "package/bin/"+p.exe() || plat[1].mode != 0o755 {
		var names []string
		for _, e := range plat {
			names = append(names, e.name)
		}
		t.Fatalf("platform package entries: %v; want package.json, the binary, LICENSE and NOTICE", names)
	}
	if plat[2].name != "package/LICENSE" || !bytes.Equal(plat[2].data, license) {
		t.Errorf("platform package: %s, want package/LICENSE equal to the repository's LICENSE", plat[2].name)
	}
	// The binary embeds third-party data whose licences (MIT, CC BY-SA)
	// want their notices wherever it goes.
	notice, err := os.ReadFile(filepath.Join(root, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	if plat[3].name != "package/NOTICE" || !bytes.Equal(plat[3].data, notice) {
		t.Errorf("platform package: %s, want package/NOTICE equal to the repository's NOTICE", plat[2].name)
	}
	var ppj struct {
		Name, Version string
		License       string
		OS, CPU       []string
	}
	json.Unmarshal(plat[0].data, &ppj)
	if ppj.Name != "ocmem-"+host || ppj.Version != version || ppj.License != "MIT" || !slices.Equal(ppj.OS, []string{p.OS}) || !slices.Equal(ppj.CPU, []string{p.Arch}) {
		t.Errorf("platform package.json: %+v", ppj)
	}
	bin := filepath.Join(t.TempDir(), p.exe())
	if err := os.WriteFile(bin, plat[1].data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkStamp(context.Background(), bin, version); err != nil {
		t.Error(err)
	}

	// The download archive holds the same binary.
	var arch []entry
	if runtime.GOOS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(read(archive)), int64(len(read(archive))))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			arch = append(arch, entry{f.Name, f.Mode(), f.Modified, b})
		}
	} else {
		arch = readTarGz(t, read(archive))
	}
	// In a folder of the archive's name, so that extracting it does not
	// fill the current directory; dated by the commit, not 1985.
	folder := strings.TrimSuffix(strings.TrimSuffix(archive, ".tar.gz"), ".zip") + "/"
	if len(arch) != 4 || arch[0].name != folder+p.exe() || arch[0].mode.Perm() != 0o755 || !bytes.Equal(arch[0].data, plat[1].data) || arch[1].name != folder+"README.md" ||
		arch[2].name != folder+"LICENSE" || !bytes.Equal(arch[2].data, license) ||
		arch[3].name != folder+"NOTICE" || !bytes.Equal(arch[3].data, notice) {
		t.Errorf("archive entries: %d, first %v %v; want %sbinary, README.md, LICENSE and NOTICE", len(arch), arch[0].name, arch[0].mode, folder)
	}
	for _, e := range arch {
		if want := commitTime(context.Background(), root); !e.mtime.Equal(want) || e.mtime.Year() < 2000 {
			t.Errorf("%s is dated %v, want the commit's time %v", e.name, e.mtime, want)
		}
	}

	// A second run gives the same bytes.
	first := map[string][]byte{}
	for _, f := range files {
		first[f] = read(f)
	}
	if _, err := release(context.Background(), version, out, plats, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !bytes.Equal(first[f], read(f)) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}
