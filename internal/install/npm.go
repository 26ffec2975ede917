package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Two ways to have ocmem
//
// From a checkout or a release archive, the binary has a path of its own:
// install writes the plugin file with that path filled in, beside the two
// files that make its folder loadable, and registers the folder
// ("…/ocmem"; see writePluginDir). From npm (`npx ocmem@V install`, `npm i -g
// ocmem`), the binary is bin/ocmem of the platform package
// ocmem-<platform>-<arch> (see tools/release): install registers the
// pinned package "ocmem@V" instead, which OpenCode installs into its own
// cache and loads from there. Either way it removes the other kind of
// entry, so OpenCode never loads ocmem twice.

// NpmInstall describes a binary that runs from an npm platform package.
type NpmInstall struct {
	Version string `json:"version"`
	Package string `json:"package"` // ocmem-<platform>-<arch>
	Dir     string `json:"dir"`     // the package's folder
	// Npx: the package lies in npx's cache (<npm cache>/_npx/…), which npm
	// may clean at any time, so nothing should keep its path.
	Npx bool `json:"npx,omitempty"`
}

// Spec is the plugin entry OpenCode installs this version from.
func (n *NpmInstall) Spec() string { return "ocmem@" + n.Version }

// DetectNpm reports whether bin is bin/ocmem(.exe) of an ocmem platform
// package, nil if not.
func DetectNpm(bin string) *NpmInstall {
	binDir := filepath.Dir(bin)
	if filepath.Base(binDir) != "bin" {
		return nil
	}
	dir := filepath.Dir(binDir)
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil
	}
	var pj struct{ Name, Version string }
	if json.Unmarshal(b, &pj) != nil || !strings.HasPrefix(pj.Name, "ocmem-") || pj.Version == "" ||
		filepath.Base(dir) != pj.Name || filepath.Base(filepath.Dir(dir)) != "node_modules" {
		return nil
	}
	n := &NpmInstall{Version: pj.Version, Package: pj.Name, Dir: dir}
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		if part == "_npx" {
			n.Npx = true
		}
	}
	return n
}

// npmSpec returns the version of an ocmem npm plugin spec: "ocmem" gives
// "" (OpenCode reads it as ocmem@latest), "ocmem@0.1.0" gives "0.1.0";
// ok is false for anything else.
func npmSpec(spec string) (version string, ok bool) {
	if spec == "ocmem" {
		return "", true
	}
	v, found := strings.CutPrefix(spec, "ocmem@")
	return v, found && v != ""
}

// entrySpec is a plugin entry's spec: the string, a tuple's first item, or
// an OpenCode 2 entry's package.
func entrySpec(entry any) string {
	switch v := entry.(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["package"].(string)
		return s
	case []any:
		if len(v) > 0 {
			s, _ := v[0].(string)
			return s
		}
	}
	return ""
}

// entryOptions is a tuple's or an OpenCode 2 entry's options object, nil
// for a bare string.
func entryOptions(entry any) map[string]any {
	if v, ok := entry.(map[string]any); ok {
		o, _ := v["options"].(map[string]any)
		return o
	}
	if v, ok := entry.([]any); ok && len(v) > 1 {
		o, _ := v[1].(map[string]any)
		return o
	}
	return nil
}

// OpenCodeCacheDir is where OpenCode keeps what it installs:
// $XDG_CACHE_HOME/opencode, else ~/.cache/opencode, on every system
// (OpenCode 1.18.33). Plugins from npm go to packages/<spec>/node_modules.
func OpenCodeCacheDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "opencode"), nil
}

// NpmCache is what OpenCode's cache holds for a plugin spec.
type NpmCache struct {
	Spec string `json:"spec"`
	// Entry is the spec's folder, <cache>/packages/<spec> (2.x:
	// <cache>/npm/<spec>/<time>): what OpenCode installs, and installs
	// again at its next start when it is gone.
	Entry   string `json:"entry"`
	Dir     string `json:"dir"`               // <Entry>/node_modules/ocmem
	Version string `json:"version,omitempty"` // of the installed package, "" if absent
	// Binary is the platform package's binary beside it, "" if absent.
	Binary string `json:"binary,omitempty"`
}

// InspectNpmCache looks for spec's package in OpenCode's cache.
func InspectNpmCache(spec string) (*NpmCache, error) {
	cache, err := OpenCodeCacheDir()
	if err != nil {
		return nil, err
	}
	// "ocmem" is installed as ocmem@latest.
	dirSpec := spec
	if spec == "ocmem" {
		dirSpec = "ocmem@latest"
	}
	nm := filepath.Join(cache, "packages", dirSpec, "node_modules")
	if _, err := os.Stat(filepath.Join(nm, "ocmem")); err != nil {
		// OpenCode 2.0.15 installs into npm/<spec>/<time>/node_modules;
		// the newest install is the one it loads.
		if dirs, _ := filepath.Glob(filepath.Join(cache, "npm", dirSpec, "*", "node_modules", "ocmem")); len(dirs) > 0 {
			slices.Sort(dirs)
			nm = filepath.Dir(dirs[len(dirs)-1])
		}
	}
	c := &NpmCache{Spec: spec, Entry: filepath.Dir(nm), Dir: filepath.Join(nm, "ocmem")}
	if b, err := os.ReadFile(filepath.Join(c.Dir, "package.json")); err == nil {
		var pj struct{ Version string }
		if json.Unmarshal(b, &pj) == nil {
			c.Version = pj.Version
		}
	}
	bin := filepath.Join(nm, "ocmem-"+NodePlatform(), "bin", exeName())
	if _, err := os.Stat(bin); err == nil {
		c.Binary = bin
	}
	return c, nil
}

// Broken reports whether OpenCode's cache holds the package without its
// platform package's binary: OpenCode uses an installed entry as it is and
// never installs it again, so memory stays off until the entry is gone.
func (c *NpmCache) Broken() bool { return c.Version != "" && c.Binary == "" }

// RepairNpmCache removes spec's entry from OpenCode's cache when it is
// Broken, so OpenCode installs the package again, binary included, at its
// next start (`opencode plugin … --force` does not: it leaves an installed
// entry as it is). It returns the folder removed, "" when there was
// nothing to repair.
func RepairNpmCache(spec string) (string, error) {
	c, err := InspectNpmCache(spec)
	if err != nil || !c.Broken() {
		return "", err
	}
	if err := os.RemoveAll(c.Entry); err != nil {
		return "", fmt.Errorf("remove OpenCode's copy of %s: %w", spec, err)
	}
	return c.Entry, nil
}

// NodePlatform is this system as Node spells process.platform and
// process.arch ("linux-x64", "win32-arm64"): the platform package's suffix.
func NodePlatform() string {
	goos, arch := runtime.GOOS, runtime.GOARCH
	if goos == "windows" {
		goos = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return goos + "-" + arch
}

func exeName() string {
	if runtime.GOOS == "windows" {
		return "ocmem.exe"
	}
	return "ocmem"
}
