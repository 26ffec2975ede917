// Package install registers the ocmem plugin with OpenCode and removes it
// again, editing opencode.json or opencode.jsonc without losing comments.
//
//	res, err := install.Install(install.Options{})   // every OpenCode of this user
//	res, err = install.Uninstall(install.Options{})
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/ocmem/ocmem/internal/atomicfile"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/plugin"
)

// Options say where to install.
type Options struct {
	// Project installs into the repository around Dir (default: the working
	// directory): <repo>/.opencode/ocmem/plugin.js and <repo>/opencode.json.
	Project bool
	Dir     string
	// ConfigDir is OpenCode's global config dir (default: as OpenCode finds it).
	ConfigDir string
	// GlobalRoot is the global memory root to create (default
	// <ConfigDir>/memory). Not created for a project install.
	GlobalRoot string
	// Bin is the ocmem binary the plugin runs (default: this executable).
	Bin string
	// GitMergeDriver also registers (Uninstall: removes) the ocmem git
	// merge driver in the user's global git config (see gitmerge.go).
	GitMergeDriver bool
}

// Result says what was done.
type Result struct {
	PluginPath string `json:"plugin"`
	ConfigPath string `json:"config"`
	GlobalRoot string `json:"global_root,omitempty"`
	Bin        string `json:"bin"`
	Registered bool   `json:"registered"` // the config was changed
	Wrote      bool   `json:"wrote"`      // the plugin file was changed
	Removed    bool   `json:"removed,omitempty"`
	// ConfigRemoved: uninstall removed the config file install had
	// created, as nothing else was in it.
	ConfigRemoved bool `json:"config_removed,omitempty"`
	// Kept names what uninstall left on purpose (the person's data), for
	// Lines; set by the caller, which knows where that data is.
	Kept []string `json:"kept,omitempty"`
	// MergeDriver is the git merge driver's registration, when asked for.
	MergeDriver *MergeDriverStatus `json:"merge_driver,omitempty"`
	// Spec is the plugin entry registered: the plugin file's path, or
	// "ocmem@V" when this binary came from npm (then Npm says from where,
	// and no plugin file is written: Wrote means an old one was removed).
	Spec string      `json:"spec,omitempty"`
	Npm  *NpmInstall `json:"npm,omitempty"`
	// Replaced are the other ocmem entries taken out of the config (the
	// other kind, or another version), so ocmem loads once.
	Replaced []string `json:"replaced,omitempty"`
	// Repaired is OpenCode's cached copy of the npm package that lacked
	// its binary, removed so OpenCode installs it again (RepairNpmCache).
	Repaired string `json:"repaired,omitempty"`
}

// Lines describes the result for a person.
func (r *Result) Lines() []string {
	var out []string
	if r.Removed || (!r.Wrote && !r.Registered && r.Bin == "") {
		switch {
		case r.ConfigRemoved:
			out = append(out, "removed "+r.ConfigPath+" (install had created it; nothing else was in it)")
		case r.Registered:
			out = append(out, "unregistered ocmem from "+r.ConfigPath)
		default:
			out = append(out, "ocmem was not registered in "+r.ConfigPath)
		}
		if r.Wrote {
			out = append(out, "removed "+r.PluginPath)
		}
		if d := r.MergeDriver; d != nil && d.Changed {
			out = append(out, "removed the ocmem git merge driver from the global git config")
		}
		if len(r.Kept) == 0 {
			return append(out, "memories were left in place")
		}
		for _, k := range r.Kept {
			out = append(out, "kept "+k)
		}
		return out
	}
	if r.Npm != nil {
		if r.Registered {
			out = append(out, "registered "+r.Spec+" in "+r.ConfigPath+"; OpenCode installs it from npm when it starts")
		} else {
			out = append(out, r.Spec+" already registered in "+r.ConfigPath)
		}
		if r.Wrote {
			out = append(out, "removed the plugin file "+r.PluginPath+" (OpenCode loads ocmem from npm now)")
		}
		if r.Repaired != "" {
			out = append(out, "removed OpenCode's copy of "+r.Spec+", which lacked its binary ("+r.Repaired+"); OpenCode installs it again when it starts")
		}
	} else {
		verb := "plugin up to date at "
		if r.Wrote {
			verb = "wrote plugin "
		}
		out = append(out, verb+r.PluginPath+" (runs "+r.Bin+")")
		if r.Registered {
			out = append(out, "registered it in "+r.ConfigPath)
		} else {
			out = append(out, "already registered in "+r.ConfigPath)
		}
	}
	for _, old := range r.Replaced {
		out = append(out, "removed the entry "+old+" from "+r.ConfigPath+", so ocmem loads once")
	}
	if r.GlobalRoot != "" {
		out = append(out, "global memory root: "+r.GlobalRoot)
	}
	switch d := r.MergeDriver; {
	case d == nil:
	case d.Skipped != "":
		out = append(out, "git merge driver not registered: "+d.Skipped)
	case d.Changed:
		out = append(out, "registered the git merge driver for ROOT.md in the global git config (merge.ocmem)")
	default:
		out = append(out, "git merge driver for ROOT.md already registered (merge.ocmem)")
	}
	if r.Wrote || r.Registered || len(r.Replaced) > 0 || r.Repaired != "" {
		return append(out, "restart OpenCode to load it")
	}
	return append(out, "nothing changed: OpenCode already loads ocmem")
}

// locations resolves the plugin file and config file paths.
func locations(o Options) (pluginPath, configDir string, err error) {
	if o.Project {
		dir := o.Dir
		if dir == "" {
			if dir, err = os.Getwd(); err != nil {
				return "", "", err
			}
		}
		root, err := store.CanonicalRoot(dir)
		if err != nil {
			return "", "", err
		}
		return filepath.Join(root, ".opencode", "ocmem", "plugin.js"), root, nil
	}
	configDir = o.ConfigDir
	if configDir == "" {
		if configDir, err = store.OpenCodeConfigDir(); err != nil {
			return "", "", err
		}
	}
	return filepath.Join(configDir, "ocmem", "plugin.js"), configDir, nil
}

// configFile returns the existing opencode.jsonc or opencode.json in dir,
// else the path of a new opencode.json.
func configFile(dir string) string {
	for _, name := range []string{"opencode.jsonc", "opencode.json"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dir, "opencode.json")
}

// binary is the ocmem binary the plugin is to run: Options.Bin, else this
// executable with symlinks resolved.
func binary(o Options) (string, error) {
	if o.Bin != "" {
		return o.Bin, nil
	}
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the ocmem binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	return bin, nil
}

// Install writes the plugin and registers it. Running it again changes
// nothing but a plugin that differs (a new ocmem version) or a moved binary.
// A binary from npm registers its pinned package instead (see npm.go).
func Install(o Options) (*Result, error) {
	pluginPath, configDir, err := locations(o)
	if err != nil {
		return nil, err
	}
	bin, err := binary(o)
	if err != nil {
		return nil, err
	}
	res := &Result{PluginPath: pluginPath, ConfigPath: configFile(configDir), Bin: bin, Spec: pluginPath}
	if res.Npm = DetectNpm(bin); res.Npm != nil {
		res.Spec = res.Npm.Spec()
		if res.Wrote, err = removePluginFile(pluginPath); err != nil {
			return nil, err
		}
	} else {
		src := plugin.Render(bin)
		if old, err := os.ReadFile(pluginPath); err != nil || !bytes.Equal(old, src) {
			if err := os.MkdirAll(filepath.Dir(pluginPath), 0o755); err != nil {
				return nil, err
			}
			if err := atomicfile.Replace(pluginPath, src, 0o644); err != nil {
				return nil, err
			}
			res.Wrote = true
		}
	}
	res.Registered, res.Replaced, err = editConfig(res.ConfigPath, pluginPath, res.Spec)
	if err != nil {
		return nil, err
	}
	if res.Npm != nil {
		if res.Repaired, err = RepairNpmCache(res.Spec); err != nil {
			return nil, err
		}
	}
	if !o.Project {
		root := o.GlobalRoot
		if root == "" {
			root = filepath.Join(configDir, "memory")
		}
		unlock, err := (store.Root{Scope: store.Global, Dir: root}).Lock()
		if err != nil {
			return nil, fmt.Errorf("create the global memory root: %w", err)
		}
		unlock()
		res.GlobalRoot = root
	}
	switch {
	case !o.GitMergeDriver:
	case res.Npm != nil && res.Npm.Npx:
		res.MergeDriver = &MergeDriverStatus{Skipped: npxMergeDriver}
	default:
		if res.MergeDriver, err = registerMergeDriver(bin); err != nil {
			return nil, fmt.Errorf("register the git merge driver: %w", err)
		}
	}
	return res, nil
}

// npxMergeDriver says why `npx ocmem install` leaves the merge driver alone.
const npxMergeDriver = "this ocmem runs from npx's cache, which npm may clean at any time, and git needs a binary that stays; " +
	"`npm i -g ocmem` or a release archive gives one: run its `ocmem install` to register the driver. " +
	"Without it git merges ROOT.md as text and `ocmem compile` repairs its tables (docs/SYNC.md)"

// removePluginFile deletes a plugin file an earlier install wrote, and its
// folder if that is left empty. It reports whether there was one.
func removePluginFile(pluginPath string) (bool, error) {
	if err := os.Remove(pluginPath); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	os.Remove(filepath.Dir(pluginPath)) // only if empty
	return true, nil
}

// Uninstall unregisters the plugin, both kinds of entry, and deletes its
// file. Memories stay.
func Uninstall(o Options) (*Result, error) {
	pluginPath, configDir, err := locations(o)
	if err != nil {
		return nil, err
	}
	res := &Result{PluginPath: pluginPath, ConfigPath: configFile(configDir), Removed: true}
	if _, err := os.Stat(res.ConfigPath); err == nil {
		if res.Registered, res.Replaced, err = editConfig(res.ConfigPath, pluginPath, ""); err != nil {
			return nil, err
		}
		// The config install created, and nothing else since: gone again.
		if b, err := os.ReadFile(res.ConfigPath); err == nil && res.Registered && string(b) == createdConfig {
			if err := os.Remove(res.ConfigPath); err != nil {
				return nil, err
			}
			res.ConfigRemoved = true
		}
	}
	if res.Wrote, err = removePluginFile(pluginPath); err != nil {
		return nil, err
	}
	// A project uninstall leaves the driver: other repositories use it.
	if o.GitMergeDriver && !o.Project {
		if res.MergeDriver, err = unregisterMergeDriver(); err != nil {
			return nil, fmt.Errorf("remove the git merge driver: %w", err)
		}
	}
	return res, nil
}

// isOurs reports whether a plugin entry names the ocmem plugin file.
func isOurs(entry any, pluginPath string) bool {
	spec := strings.TrimPrefix(entrySpec(entry), "file://")
	return spec != "" && filepath.Clean(spec) == filepath.Clean(pluginPath)
}

// isOcmem reports whether a plugin entry loads ocmem: the plugin file, or
// the ocmem package from npm at any version.
func isOcmem(entry any, pluginPath string) bool {
	_, npm := npmSpec(entrySpec(entry))
	return npm || isOurs(entry, pluginPath)
}

// editConfig makes the plugin list of an OpenCode config file hold spec
// (the plugin file's path or "ocmem@V"; "" for none) as its one ocmem
// entry, keeping comments and formatting. A new entry takes the place and
// the options of the first ocmem entry it replaces. It reports whether the
// file changed and which entries were taken out.
func editConfig(path, pluginPath, spec string) (changed bool, removed []string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if spec == "" {
			return false, nil, nil
		}
		// A new config is written as text, not formatted by hujson
		// (which aligns values with two spaces here and not after an
		// edit), so it reads the same after every install.
		lit, err := json.Marshal(spec)
		if err != nil {
			return false, nil, err
		}
		return true, nil, writeConfig(path, []byte(strings.TrimSuffix(createdConfig, "\n}\n")+",\n  \"plugin\": [["+string(lit)+", {}]]\n}\n"))
	} else if err != nil {
		return false, nil, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return false, nil, fmt.Errorf("%s is not valid JSON(C): %w; fix it or register the plugin by hand", path, err)
	}
	std := v.Clone()
	std.Standardize()
	var cfg struct {
		Plugin []any `json:"plugin"`
	}
	if err := json.Unmarshal(std.Pack(), &cfg); err != nil {
		return false, nil, fmt.Errorf("%s: %w", path, err)
	}
	keep := -1 // the entry that already is spec
	var ours []int
	for i, e := range cfg.Plugin {
		switch {
		case spec != "" && keep < 0 && (entrySpec(e) == spec || (spec == pluginPath && isOurs(e, pluginPath))):
			keep = i
		case isOcmem(e, pluginPath):
			ours = append(ours, i)
		}
	}
	var ops []string
	op := func(format string, a ...any) { ops = append(ops, fmt.Sprintf(format, a...)) }
	if spec != "" && keep < 0 {
		opts := map[string]any{}
		for _, i := range ours {
			if o := entryOptions(cfg.Plugin[i]); o != nil {
				opts = o
				break
			}
		}
		entry, err := json.Marshal([]any{spec, opts})
		if err != nil {
			return false, nil, err
		}
		switch {
		case len(ours) > 0: // in the place of the first one replaced
			op(`{"op":"replace","path":"/plugin/%d","value":%s}`, ours[0], entry)
			removed = append(removed, entrySpec(cfg.Plugin[ours[0]]))
			ours = ours[1:]
		case cfg.Plugin != nil:
			op(`{"op":"add","path":"/plugin/-","value":%s}`, entry)
		case hasKey(std.Pack(), "plugin"): // "plugin": null
			op(`{"op":"replace","path":"/plugin","value":[%s]}`, entry)
		default:
			op(`{"op":"add","path":"/plugin","value":[%s]}`, entry)
		}
	}
	switch {
	case spec == "" && len(ours) > 0 && len(ours) == len(cfg.Plugin):
		// Every entry is ocmem's: no empty "plugin": [] is left behind.
		op(`{"op":"remove","path":"/plugin"}`)
		for _, i := range ours {
			removed = append(removed, entrySpec(cfg.Plugin[i]))
		}
	default:
		for j := len(ours) - 1; j >= 0; j-- { // from the end, so indexes stay valid
			op(`{"op":"remove","path":"/plugin/%d"}`, ours[j])
			removed = append(removed, entrySpec(cfg.Plugin[ours[j]]))
		}
	}
	if len(ops) == 0 {
		return false, nil, nil
	}
	if err := v.Patch([]byte("[" + strings.Join(ops, ",") + "]")); err != nil {
		return false, nil, fmt.Errorf("edit %s: %w", path, err)
	}
	// A person's layout is theirs: nothing is reformatted.
	return true, removed, writeConfig(path, v.Pack())
}

// createdConfig is the config file install creates when there is none,
// before the plugin entry is added; uninstall removes a file left exactly so.
const createdConfig = "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"

// writeConfig replaces a config file durably, through a symlink to it (a
// dotfiles repository's) and keeping its mode (a config holding an API key
// stays 0600).
func writeConfig(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, data, 0o644)
}

func hasKey(obj []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// Status is what is installed where, for `ocmem doctor`.
type Status struct {
	PluginPath string `json:"plugin"`
	ConfigPath string `json:"config"`
	// PluginPresent: the plugin file exists; PluginCurrent: it is exactly
	// what this binary would write (same plugin version, same binary path).
	PluginPresent bool `json:"plugin_present"`
	PluginCurrent bool `json:"plugin_current"`
	// Registered: the config's plugin list names the plugin file.
	Registered bool `json:"registered"`
	// Npm is the config's ocmem entry from npm ("ocmem@V", or "ocmem"
	// for the unpinned one), "" if none.
	Npm       string `json:"npm,omitempty"`
	ConfigErr string `json:"config_error,omitempty"`
}

// Inspect reports the installation that Install with the same options
// would make, without changing anything.
func Inspect(o Options) (*Status, error) {
	pluginPath, configDir, err := locations(o)
	if err != nil {
		return nil, err
	}
	bin, err := binary(o)
	if err != nil {
		return nil, err
	}
	st := &Status{PluginPath: pluginPath, ConfigPath: configFile(configDir)}
	if b, err := os.ReadFile(pluginPath); err == nil {
		st.PluginPresent = true
		st.PluginCurrent = bytes.Equal(b, plugin.Render(bin))
	}
	data, err := os.ReadFile(st.ConfigPath)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			st.ConfigErr = err.Error()
		}
		return st, nil
	}
	v, err := hujson.Parse(data)
	if err != nil {
		st.ConfigErr = err.Error()
		return st, nil
	}
	v.Standardize()
	var cfg struct {
		Plugin []any `json:"plugin"`
	}
	if err := json.Unmarshal(v.Pack(), &cfg); err != nil {
		st.ConfigErr = err.Error()
		return st, nil
	}
	for _, e := range cfg.Plugin {
		st.Registered = st.Registered || isOurs(e, pluginPath)
		if _, ok := npmSpec(entrySpec(e)); ok && st.Npm == "" {
			st.Npm = entrySpec(e)
		}
	}
	return st, nil
}
