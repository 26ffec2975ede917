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
	// MergeDriver is the git merge driver's registration, when asked for.
	MergeDriver *MergeDriverStatus `json:"merge_driver,omitempty"`
}

// Lines describes the result for a person.
func (r *Result) Lines() []string {
	var out []string
	if r.Removed || (!r.Wrote && !r.Registered && r.Bin == "") {
		if r.Registered {
			out = append(out, "unregistered ocmem from "+r.ConfigPath)
		} else {
			out = append(out, "ocmem was not registered in "+r.ConfigPath)
		}
		if r.Wrote {
			out = append(out, "removed "+r.PluginPath)
		}
		if d := r.MergeDriver; d != nil && d.Changed {
			out = append(out, "removed the ocmem git merge driver from the global git config")
		}
		return append(out, "memories were left in place")
	}
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
	return append(out, "restart OpenCode to load it; `ocmem doctor` checks the setup")
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
func Install(o Options) (*Result, error) {
	pluginPath, configDir, err := locations(o)
	if err != nil {
		return nil, err
	}
	bin, err := binary(o)
	if err != nil {
		return nil, err
	}
	res := &Result{PluginPath: pluginPath, ConfigPath: configFile(configDir), Bin: bin}
	src := plugin.Render(bin)
	if old, err := os.ReadFile(pluginPath); err != nil || !bytes.Equal(old, src) {
		if err := os.MkdirAll(filepath.Dir(pluginPath), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(pluginPath, src, 0o644); err != nil {
			return nil, err
		}
		res.Wrote = true
	}
	changed, err := editConfig(res.ConfigPath, pluginPath, true)
	if err != nil {
		return nil, err
	}
	res.Registered = changed
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
	if o.GitMergeDriver {
		if res.MergeDriver, err = registerMergeDriver(bin); err != nil {
			return nil, fmt.Errorf("register the git merge driver: %w", err)
		}
	}
	return res, nil
}

// Uninstall unregisters the plugin and deletes its file. Memories stay.
func Uninstall(o Options) (*Result, error) {
	pluginPath, configDir, err := locations(o)
	if err != nil {
		return nil, err
	}
	res := &Result{PluginPath: pluginPath, ConfigPath: configFile(configDir), Removed: true}
	if _, err := os.Stat(res.ConfigPath); err == nil {
		if res.Registered, err = editConfig(res.ConfigPath, pluginPath, false); err != nil {
			return nil, err
		}
	}
	if err := os.Remove(pluginPath); err == nil {
		res.Wrote = true
		os.Remove(filepath.Dir(pluginPath)) // only if empty
	} else if !errors.Is(err, fs.ErrNotExist) {
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
	var spec string
	switch v := entry.(type) {
	case string:
		spec = v
	case []any:
		if len(v) > 0 {
			spec, _ = v[0].(string)
		}
	}
	spec = strings.TrimPrefix(spec, "file://")
	return spec != "" && filepath.Clean(spec) == filepath.Clean(pluginPath)
}

// editConfig adds (add=true) or removes the plugin entry in an OpenCode
// config file, keeping its comments and formatting. It reports whether the
// file changed.
func editConfig(path, pluginPath string, add bool) (bool, error) {
	data, err := os.ReadFile(path)
	created := false
	if errors.Is(err, fs.ErrNotExist) {
		created = true
		if !add {
			return false, nil
		}
		data = []byte("{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n")
	} else if err != nil {
		return false, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return false, fmt.Errorf("%s is not valid JSON(C): %w; fix it or register the plugin by hand", path, err)
	}
	std := v.Clone()
	std.Standardize()
	var cfg struct {
		Plugin []any `json:"plugin"`
	}
	if err := json.Unmarshal(std.Pack(), &cfg); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	var patch string
	switch {
	case add:
		for _, e := range cfg.Plugin {
			if isOurs(e, pluginPath) {
				return false, nil
			}
		}
		entry, _ := json.Marshal([]any{pluginPath, map[string]any{}})
		if cfg.Plugin == nil {
			if hasKey(std.Pack(), "plugin") { // "plugin": null
				patch = fmt.Sprintf(`[{"op":"replace","path":"/plugin","value":[%s]}]`, entry)
			} else {
				patch = fmt.Sprintf(`[{"op":"add","path":"/plugin","value":[%s]}]`, entry)
			}
		} else {
			patch = fmt.Sprintf(`[{"op":"add","path":"/plugin/-","value":%s}]`, entry)
		}
	default:
		var ops []string
		for i := len(cfg.Plugin) - 1; i >= 0; i-- { // from the end, so indexes stay valid
			if isOurs(cfg.Plugin[i], pluginPath) {
				ops = append(ops, fmt.Sprintf(`{"op":"remove","path":"/plugin/%d"}`, i))
			}
		}
		if len(ops) == 0 {
			return false, nil
		}
		patch = "[" + strings.Join(ops, ",") + "]"
	}
	if err := v.Patch([]byte(patch)); err != nil {
		return false, fmt.Errorf("edit %s: %w", path, err)
	}
	// Only a file ocmem created is reformatted; a person's layout is theirs.
	if created {
		v.Format()
	}
	out := v.Pack()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp := path + ".ocmem.tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
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
	Registered bool   `json:"registered"`
	ConfigErr  string `json:"config_error,omitempty"`
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
	}
	return st, nil
}
