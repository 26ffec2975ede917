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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/ocmem/ocmem/internal/atomicfile"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/plugin"
)

// Options say where to install.
type Options struct {
	// Project installs into the repository around Dir (default: the working
	// directory): the folder <repo>/.opencode/ocmem and <repo>/opencode.json.
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
	// CreatedRoot: the global memory root did not exist and was created.
	CreatedRoot bool   `json:"created_global_root,omitempty"`
	Bin         string `json:"bin"`
	// FromPath: the plugin names no binary (a project install, whose files
	// are committed): it runs the ocmem on PATH, or $OCMEM_BIN.
	FromPath   bool `json:"bin_from_path,omitempty"`
	Registered bool `json:"registered"` // the config was changed
	Wrote      bool `json:"wrote"`      // the plugin file was changed
	Removed    bool `json:"removed,omitempty"`
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
	// TUIReplaced are the ocmem entries taken out of TUIConfig, OpenCode's
	// TUI config (tui.json), where `opencode plugin ocmem@V` puts one.
	TUIConfig   string   `json:"tui_config,omitempty"`
	TUIReplaced []string `json:"tui_replaced,omitempty"`
	// InPlace are files that had other hard links, written in place so
	// every name sees the change (a replace would have left the others
	// with the old content); said, as such a write is not atomic.
	InPlace []string `json:"in_place,omitempty"`
	// Repaired is OpenCode's cached copy of the npm package that lacked
	// its binary, removed so OpenCode installs it again (RepairNpmCache).
	Repaired string `json:"repaired,omitempty"`
}

// Lines describes the result for a person.
func (r *Result) Lines() []string {
	if r.Removed || (!r.Wrote && !r.Registered && r.Bin == "") {
		return r.uninstallLines()
	}
	out := r.pluginLines()
	for _, old := range r.Replaced {
		out = append(out, "removed the entry "+old+" from "+r.ConfigPath+", so ocmem loads once")
	}
	for _, old := range r.TUIReplaced {
		out = append(out, "removed the entry "+old+" from "+r.TUIConfig+" (OpenCode's TUI config), so the TUI loads ocmem from the plugin folder, not from npm")
	}
	out = append(out, r.inPlaceLines()...)
	switch {
	case r.CreatedRoot:
		out = append(out, "created the global memory root "+r.GlobalRoot)
	case r.GlobalRoot != "":
		out = append(out, "global memory root: "+r.GlobalRoot)
	}
	out = append(out, r.mergeDriverLines()...)
	if r.FromPath {
		out = append(out, "every teammate who opens this project in OpenCode needs ocmem on PATH (the README says how to install it); without it OpenCode runs as before and the plugin says ocmem is missing")
	}
	if r.Wrote || r.Registered || len(r.Replaced) > 0 || len(r.TUIReplaced) > 0 || r.Repaired != "" {
		return append(out, "restart OpenCode to load it")
	}
	if r.CreatedRoot || (r.MergeDriver != nil && r.MergeDriver.Changed) {
		return append(out, "OpenCode already loads ocmem")
	}
	return append(out, "nothing changed: OpenCode already loads ocmem")
}

// pluginLines describes the plugin install: the npm package registered,
// or the plugin folder written and registered.
func (r *Result) pluginLines() []string {
	var out []string
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
		return out
	}
	verb := "plugin up to date at "
	if r.Wrote {
		verb = "wrote plugin "
	}
	if r.FromPath {
		out = append(out, verb+r.PluginPath+" (runs the ocmem on PATH, or $OCMEM_BIN; it names no path of this machine, so opencode.json and .opencode/ocmem can be committed)")
	} else {
		out = append(out, verb+r.PluginPath+" (runs "+r.Bin+")")
	}
	if r.Registered {
		return append(out, "registered it in "+r.ConfigPath)
	}
	return append(out, "already registered in "+r.ConfigPath)
}

// mergeDriverLines describes the git merge driver's registration.
func (r *Result) mergeDriverLines() []string {
	switch d := r.MergeDriver; {
	case d == nil:
		return nil
	case d.Skipped != "":
		return []string{"git merge driver not registered: " + d.Skipped}
	case d.Changed:
		return []string{"registered the git merge driver for ROOT.md in the global git config (merge.ocmem)"}
	default:
		return []string{"git merge driver for ROOT.md already registered (merge.ocmem)"}
	}
}

// uninstallLines describes what uninstall did.
func (r *Result) uninstallLines() []string {
	var out []string
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
	out = append(out, r.inPlaceLines()...)
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

// inPlaceLines say which files were written in place, and why.
func (r *Result) inPlaceLines() []string {
	var out []string
	for _, p := range r.InPlace {
		out = append(out, "wrote "+p+" in place: it has other hard links, which replacing it would have cut off (their names see the change)")
	}
	return out
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
		res.Spec = filepath.Dir(pluginPath)
		if o.Project {
			res.Spec, res.FromPath = projectSpec, true
		}
		if res.Wrote, res.InPlace, err = writePluginDir(pluginPath, pluginSource(o, bin)); err != nil {
			return nil, err
		}
	}
	var inPlace bool
	res.Registered, res.Replaced, inPlace, err = editConfig(res.ConfigPath, pluginPath, res.Spec)
	if err != nil {
		return nil, err
	}
	if inPlace {
		res.InPlace = append(res.InPlace, res.ConfigPath)
	}
	if res.Npm == nil && !o.Project {
		// `opencode plugin ocmem@V -g` also lists the package in the TUI's
		// config, tui.json; from a checkout the plugin folder's tui.js is
		// the TUI entry, so the package's would still be loaded from npm.
		res.TUIConfig = filepath.Join(configDir, "tui.json")
		var tuiInPlace bool
		if _, res.TUIReplaced, tuiInPlace, err = editConfig(res.TUIConfig, pluginPath, ""); err != nil {
			return nil, err
		}
		if tuiInPlace {
			res.InPlace = append(res.InPlace, res.TUIConfig)
		}
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
		_, statErr := os.Stat(root)
		res.CreatedRoot = errors.Is(statErr, fs.ErrNotExist)
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

// The plugin is registered as its folder, which both OpenCode lines load:
// 1.18 imports the folder's package.json "main" (plugin.js); 2.x takes a
// folder's index.js (a file entry it refuses: "configured plugin path must
// be a directory"). index.js re-exports plugin.js, so the module is one.
// 2.x's TUI loads the folder's tui.js, the TUI entry that shows ocmem's
// toasts there; 1.18 does not look for it.
const (
	pluginIndex   = "export { default } from \"./plugin.js\"\n"
	pluginPackage = "{\n  \"name\": \"ocmem-plugin\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"main\": \"./plugin.js\"\n}\n"
)

// projectSpec is the plugin entry of a project install: the folder,
// relative to the project's opencode.json, which both OpenCode lines
// resolve from the config file's folder. A project's opencode.json and
// .opencode/ are committed, so they name no path of the machine that
// installed them.
const projectSpec = "./.opencode/ocmem"

// pluginSource is plugin.js as Install writes it: running bin, or, in a
// project (whose files are committed and run on other machines), with no
// binary filled in, so that it finds ocmem the way the npm package's plugin
// does: options.bin, $OCMEM_BIN, the npm platform package, PATH.
func pluginSource(o Options, bin string) []byte {
	if o.Project {
		return plugin.Source
	}
	return plugin.Render(bin)
}

// pluginFiles are the files of the plugin folder beside plugin.js, with
// their content.
var pluginFiles = [...]struct{ name, content string }{{"index.js", pluginIndex}, {"package.json", pluginPackage}, {"tui.js", string(plugin.TUISource)}}

// writePluginDir writes the plugin folder: plugin.js as src, and the files
// that make the folder loadable. It reports whether any changed, and which
// it wrote in place to keep their other hard links.
func writePluginDir(pluginPath string, src []byte) (wrote bool, inPlace []string, err error) {
	dir := filepath.Dir(pluginPath)
	files := map[string][]byte{pluginPath: src}
	for _, f := range pluginFiles {
		files[filepath.Join(dir, f.name)] = []byte(f.content)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		want := files[p]
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, want) {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, nil, err
		}
		// The one durable write: a crash leaves the old file or the new
		// one, never a plugin file OpenCode cannot load.
		linked, err := atomicfile.Replace(p, want, 0o644)
		if err != nil {
			return false, nil, err
		}
		if linked {
			inPlace = append(inPlace, p)
		}
		wrote = true
	}
	return wrote, inPlace, nil
}

// pluginDirCurrent reports whether the plugin folder holds exactly what
// writePluginDir would write for src.
func pluginDirCurrent(pluginPath string, src []byte) bool {
	b, err := os.ReadFile(pluginPath)
	if err != nil || !bytes.Equal(b, src) {
		return false
	}
	for _, f := range pluginFiles {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(pluginPath), f.name)); err != nil || string(b) != f.content {
			return false
		}
	}
	return true
}

// removePluginFile deletes the plugin folder's files an earlier install
// wrote, and the folder if that is left empty. It reports whether there
// was a plugin file.
func removePluginFile(pluginPath string) (bool, error) {
	for _, f := range pluginFiles {
		if err := os.Remove(filepath.Join(filepath.Dir(pluginPath), f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
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
		var inPlace bool
		if res.Registered, res.Replaced, inPlace, err = editConfig(res.ConfigPath, pluginPath, ""); err != nil {
			return nil, err
		}
		if inPlace {
			res.InPlace = append(res.InPlace, res.ConfigPath)
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
	if o.Project {
		// A project install made .opencode/ for the plugin's folder: left
		// empty, it goes too (anything else OpenCode keeps there stays).
		os.Remove(filepath.Dir(filepath.Dir(pluginPath))) // only if empty
	}
	// A project uninstall leaves the driver: other repositories use it.
	if o.GitMergeDriver && !o.Project {
		if res.MergeDriver, err = unregisterMergeDriver(); err != nil {
			return nil, fmt.Errorf("remove the git merge driver: %w", err)
		}
	}
	return res, nil
}

// isOurs reports whether a plugin entry names the ocmem plugin: its folder,
// or plugin.js in it (what installs before OpenCode 2 support registered).
// configDir resolves a relative "./…" entry, as OpenCode 2 does.
func isOurs(entry any, pluginPath, configDir string) bool {
	spec := strings.TrimPrefix(entrySpec(entry), "file://")
	if spec == "" {
		return false
	}
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		spec = filepath.Join(configDir, spec)
	}
	spec = filepath.Clean(spec)
	return spec == filepath.Clean(pluginPath) || spec == filepath.Dir(filepath.Clean(pluginPath))
}

// isOurDir reports whether a plugin entry names the plugin's folder, as
// install registers it now.
func isOurDir(entry any, pluginPath, configDir string) bool {
	return isOurs(entry, pluginPath, configDir) && filepath.Ext(filepath.Clean(strings.TrimPrefix(entrySpec(entry), "file://"))) != ".js"
}

// isOcmem reports whether a plugin entry loads ocmem: the plugin, or the
// ocmem package from npm at any version.
func isOcmem(entry any, pluginPath, configDir string) bool {
	_, npm := npmSpec(entrySpec(entry))
	return npm || isOurs(entry, pluginPath, configDir)
}

// The two plugin lists of an OpenCode config. OpenCode 1.x reads "plugin"
// (a path or spec, or a [spec, options] tuple); 2.x reads "plugins"
// ({"package": spec, "options": {…}}) and "plugin" too, translated.
const (
	keyV1 = "plugin"
	keyV2 = "plugins"
)

type pluginLists struct {
	Plugin  []any `json:"plugin"`
	Plugins []any `json:"plugins"`
}

func (l *pluginLists) list(key string) []any {
	if key == keyV2 {
		return l.Plugins
	}
	return l.Plugin
}

// entryFor is a plugin entry in the shape of the list it goes into.
func entryFor(key, spec string, opts map[string]any) ([]byte, error) {
	if key == keyV2 {
		return json.Marshal(map[string]any{"package": spec, "options": opts})
	}
	return json.Marshal([]any{spec, opts})
}

// editConfig makes the plugin lists of an OpenCode config file hold spec
// (the plugin folder or "ocmem@V"; "" for none) as their one ocmem entry,
// keeping comments and formatting. A new entry takes the place, the list
// and the options of the first ocmem entry it replaces; with none, it goes
// into "plugins" when the file has only that list (OpenCode 2's shape),
// else into "plugin", which both lines read. It reports whether the file
// changed and which entries were taken out.
func editConfig(path, pluginPath, spec string) (changed bool, removed []string, inPlace bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if spec == "" {
			return false, nil, false, nil
		}
		// A new config is written as text, not formatted by hujson
		// (which aligns values with two spaces here and not after an
		// edit), so it reads the same after every install.
		lit, err := json.Marshal(spec)
		if err != nil {
			return false, nil, false, err
		}
		inPlace, err := writeConfig(path, []byte(strings.TrimSuffix(createdConfig, "\n}\n")+",\n  \"plugin\": [["+string(lit)+", {}]]\n}\n"))
		return true, nil, inPlace, err
	} else if err != nil {
		return false, nil, false, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return false, nil, false, fmt.Errorf("%s is not valid JSON(C): %w; fix it or register the plugin by hand", path, err)
	}
	std := v.Clone()
	std.Standardize()
	var cfg pluginLists
	if err := json.Unmarshal(std.Pack(), &cfg); err != nil {
		return false, nil, false, fmt.Errorf("%s: %w", path, err)
	}
	// A list given twice: JSON readers take the last, an edit would change
	// the first.
	if key := repeatedKey(std.Pack(), keyV1, keyV2); key != "" {
		return false, nil, false, fmt.Errorf("%s has the key %q more than once; keep one and run install again", path, key)
	}
	ops, removed, err := configOps(&cfg, std.Pack(), pluginPath, filepath.Dir(path), spec)
	if err != nil || len(ops) == 0 {
		return false, nil, false, err
	}
	if err := v.Patch([]byte("[" + strings.Join(ops, ",") + "]")); err != nil {
		return false, nil, false, fmt.Errorf("edit %s: %w", path, err)
	}
	// A person's layout is theirs: nothing is reformatted.
	inPlace, err = writeConfig(path, v.Pack())
	return true, removed, inPlace, err
}

// targetList is the list a new ocmem entry goes into: that of the first
// ocmem entry it replaces; else "plugins" when that is the config's only
// list (OpenCode 2's shape); else "plugin", which both lines read.
func targetList(cfg *pluginLists, obj []byte, firstKey string) string {
	switch {
	case firstKey != "":
		return firstKey
	case cfg.Plugins != nil && cfg.Plugin == nil && !hasKey(obj, keyV1):
		return keyV2
	}
	return keyV1
}

// configOps are the JSON Patch operations that leave spec as the one
// ocmem entry of both lists, and the specs of the entries they take out.
func configOps(cfg *pluginLists, obj []byte, pluginPath, configDir, spec string) (ops, removed []string, err error) {
	keepKey := "" // the list whose entry already is spec
	ours := map[string][]int{}
	firstKey := "" // the list of the first other ocmem entry
	for _, key := range []string{keyV1, keyV2} {
		for i, e := range cfg.list(key) {
			switch {
			case spec != "" && keepKey == "" && (entrySpec(e) == spec || (spec == filepath.Dir(pluginPath) && isOurDir(e, pluginPath, configDir))):
				keepKey = key
			case isOcmem(e, pluginPath, configDir):
				ours[key] = append(ours[key], i)
				if firstKey == "" {
					firstKey = key
				}
			}
		}
	}
	op := func(format string, a ...any) { ops = append(ops, fmt.Sprintf(format, a...)) }
	addKey := "" // the list a new entry goes into
	if spec != "" && keepKey == "" {
		addKey = targetList(cfg, obj, firstKey)
		opts := map[string]any{}
		if firstKey != "" {
			if o := entryOptions(cfg.list(firstKey)[ours[firstKey][0]]); o != nil {
				opts = o
			}
		}
		entry, err := entryFor(addKey, spec, opts)
		if err != nil {
			return nil, nil, err
		}
		list := cfg.list(addKey)
		switch {
		case len(ours[addKey]) > 0: // in the place of the first one replaced
			op(`{"op":"replace","path":"/%s/%d","value":%s}`, addKey, ours[addKey][0], entry)
			removed = append(removed, entrySpec(list[ours[addKey][0]]))
			ours[addKey] = ours[addKey][1:]
		case list != nil:
			op(`{"op":"add","path":"/%s/-","value":%s}`, addKey, entry)
		case hasKey(obj, addKey): // "plugin": null
			op(`{"op":"replace","path":"/%s","value":[%s]}`, addKey, entry)
		default:
			op(`{"op":"add","path":"/%s","value":[%s]}`, addKey, entry)
		}
	}
	for _, key := range []string{keyV1, keyV2} {
		list, idx := cfg.list(key), ours[key]
		if len(idx) == 0 {
			continue
		}
		if len(idx) == len(list) && key != addKey && key != keepKey {
			// Every entry is ocmem's: no empty list is left behind.
			op(`{"op":"remove","path":"/%s"}`, key)
			for _, i := range idx {
				removed = append(removed, entrySpec(list[i]))
			}
			continue
		}
		for j := len(idx) - 1; j >= 0; j-- { // from the end, so indexes stay valid
			op(`{"op":"remove","path":"/%s/%d"}`, key, idx[j])
			removed = append(removed, entrySpec(list[idx[j]]))
		}
	}
	return ops, removed, nil
}

// createdConfig is the config file install creates when there is none,
// before the plugin entry is added; uninstall removes a file left exactly so.
const createdConfig = "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"

// writeConfig replaces a config file durably, through a symlink to it (a
// dotfiles repository's) and keeping its mode (a config holding an API key
// stays 0600); a read-only one is refused and left as it is, and one with
// other hard links is written in place (inPlace), so they keep seeing it
// (atomicfile.Replace).
func writeConfig(path string, data []byte) (inPlace bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return atomicfile.Replace(path, data, 0o644)
}

// repeatedKey returns the first of keys that the top-level object obj
// holds more than once, "" if none.
func repeatedKey(obj []byte, keys ...string) string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] && slices.Contains(keys, k) {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
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
	// Registered: a plugin list of the config names the plugin (its
	// folder, or plugin.js as installs before OpenCode 2 support wrote);
	// PluginSpec is that entry.
	Registered bool   `json:"registered"`
	PluginSpec string `json:"plugin_spec,omitempty"`
	// Key is the list of the first ocmem entry: "plugin" (OpenCode 1.x and
	// 2.x read it) or "plugins" (OpenCode 2.x only).
	Key string `json:"key,omitempty"`
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
	if _, err := os.Stat(pluginPath); err == nil {
		st.PluginPresent = true
		st.PluginCurrent = pluginDirCurrent(pluginPath, pluginSource(o, bin))
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
	var cfg pluginLists
	if err := json.Unmarshal(v.Pack(), &cfg); err != nil {
		st.ConfigErr = err.Error()
		return st, nil
	}
	for _, key := range []string{keyV1, keyV2} {
		for _, e := range cfg.list(key) {
			ours := isOurs(e, pluginPath, configDir)
			_, npm := npmSpec(entrySpec(e))
			if ours && !st.Registered {
				st.Registered, st.PluginSpec = true, entrySpec(e)
			}
			if npm && st.Npm == "" {
				st.Npm = entrySpec(e)
			}
			if (ours || npm) && st.Key == "" {
				st.Key = key
			}
		}
	}
	return st, nil
}
