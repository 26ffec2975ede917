package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/ocmem/ocmem/plugin"
)

// The npm packages hold these fixed times and owners, so their bytes
// depend on their contents only. 1985-10-26T08:15:00Z is the date npm pack
// itself writes. The download archives, which a person extracts and
// lists, are dated by the release's commit instead (commitTime): as fixed
// for a commit, and a date that means something.
var fixedTime = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

const (
	homepage = "https://github.com/ocmem/ocmem"
	repoURL  = "git+https://github.com/ocmem/ocmem.git"
	// opencodeRange is the OpenCode versions the plugin is for; OpenCode
	// checks it (engines.opencode) before it loads the plugin.
	opencodeRange = "^1.18.33"
)

// launcher is bin/ocmem.js of the main package.
//
//go:embed launcher.js
var launcher []byte

// npmReadme is README.md of the main package; %[1]s is the version.
//
//go:embed npm-readme.md
var npmReadme string

// packageName is the npm name of p's package.
func packageName(p platform) string { return "ocmem-" + p.Node }

// file is one entry of a package or archive.
type file struct {
	Name string
	Mode fs.FileMode
	Data []byte
}

// licenseID is the SPDX identifier of ocmem's own licence (LICENSE at the
// repository's root); the embedded data's licences are in NOTICE.
const licenseID = "MIT"

// manifest is a package.json; fields are written in this order.
type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Keywords             []string          `json:"keywords,omitempty"`
	Homepage             string            `json:"homepage"`
	Repository           map[string]string `json:"repository"`
	Type                 string            `json:"type,omitempty"`
	Main                 string            `json:"main,omitempty"`
	Exports              map[string]string `json:"exports,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

func (m manifest) bytes() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // ">=18", not "\u003e=18"
	enc.SetIndent("", "  ")
	err := enc.Encode(m)
	return buf.Bytes(), err
}

// mainPackage is the ocmem package: the plugin OpenCode imports (exports
// "./server", and main for older loaders), OpenCode 2's TUI entry ("./tui",
// which shows the plugin's toasts there), the launcher behind `npx ocmem`,
// and an exact-version optional dependency on each platform package built;
// npm installs the one whose os and cpu match.
func mainPackage(version string, plats []platform, license []byte) ([]byte, error) {
	deps := map[string]string{}
	for _, p := range plats {
		deps[packageName(p)] = version
	}
	m := manifest{
		Name:                 "ocmem",
		Version:              version,
		Description:          "Durable, human-editable memory for the OpenCode coding agent",
		License:              licenseID,
		Keywords:             []string{"opencode", "opencode-plugin", "memory", "agent"},
		Homepage:             homepage,
		Repository:           map[string]string{"type": "git", "url": repoURL},
		Type:                 "module",
		Main:                 "./plugin.js",
		Exports:              map[string]string{".": "./plugin.js", "./server": "./plugin.js", "./tui": "./tui.js", "./package.json": "./package.json"},
		Bin:                  map[string]string{"ocmem": "bin/ocmem.js"},
		Files:                []string{"plugin.js", "tui.js", "bin/ocmem.js", "LICENSE"},
		Engines:              map[string]string{"opencode": opencodeRange, "node": ">=18"},
		OptionalDependencies: deps,
	}
	pj, err := m.bytes()
	if err != nil {
		return nil, err
	}
	return npmTarball([]file{
		{"package.json", 0o644, pj},
		{"README.md", 0o644, []byte(fmt.Sprintf(npmReadme, version))},
		{"bin/ocmem.js", 0o755, launcher},
		{"plugin.js", 0o644, plugin.Source},
		{"tui.js", 0o644, plugin.TUISource},
		{"LICENSE", 0o644, license},
	})
}

// platformPackage is ocmem-<platform>: the binary, executable, and the os
// and cpu that make npm install it on that platform only.
// LICENSE and NOTICE go with it: the binary embeds third-party data whose
// licences (MIT, CC BY-SA) ask for their notices in every copy.
func platformPackage(version string, p platform, exe, license, notice []byte) ([]byte, error) {
	m := manifest{
		Name:            packageName(p),
		Version:         version,
		Description:     fmt.Sprintf("The ocmem binary for %s (installed with the ocmem package)", p.Node),
		License:         licenseID,
		Homepage:        homepage,
		Repository:      map[string]string{"type": "git", "url": repoURL},
		Files:           []string{"bin/" + p.exe(), "LICENSE", "NOTICE"},
		OS:              []string{p.OS},
		CPU:             []string{p.Arch},
		PreferUnplugged: true,
	}
	pj, err := m.bytes()
	if err != nil {
		return nil, err
	}
	return npmTarball([]file{
		{"package.json", 0o644, pj},
		{"bin/" + p.exe(), 0o755, exe},
		{"LICENSE", 0o644, license},
		{"NOTICE", 0o644, notice},
	})
}

// npmTarball packs files under package/ as npm pack does: a gzipped tar,
// package.json first, regular files only.
func npmTarball(files []file) ([]byte, error) {
	for i := range files {
		files[i].Name = "package/" + files[i].Name
	}
	return tarGz(files, fixedTime)
}

// tarGz writes a gzipped tar of files in the order given, with the time
// given, fixed owners and an empty gzip header.
func tarGz(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Mode:     int64(f.Mode.Perm()),
			Size:     int64(len(f.Data)),
			ModTime:  mtime,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("tar %s: %w", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive writes a zip of files in the order given, with the time given.
func zipArchive(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(f.Mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// binaryArchive is the download for p: ocmem_V_<goos>_<goarch>.tar.gz
// (.zip for Windows) holding, in a folder of the same name, the binary,
// README.md, LICENSE and NOTICE (the third-party notices the binary's
// embedded data asks for), dated mtime. The folder keeps an extraction
// from filling the current directory.
func binaryArchive(version string, p platform, exe, readme, license, notice []byte, mtime time.Time) (name string, data []byte, err error) {
	base := fmt.Sprintf("ocmem_%s_%s_%s", version, p.GOOS, p.GOARCH)
	files := []file{{base + "/" + p.exe(), 0o755, exe}, {base + "/README.md", 0o644, readme}, {base + "/LICENSE", 0o644, license}, {base + "/NOTICE", 0o644, notice}}
	if p.GOOS == "windows" {
		data, err = zipArchive(files, mtime)
		return base + ".zip", data, err
	}
	data, err = tarGz(files, mtime)
	return base + ".tar.gz", data, err
}
