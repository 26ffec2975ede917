// Package doctor answers "is ocmem working?": it checks the installation,
// the memory roots, that `ocmem serve` starts and answers, and reads the log
// for the last injection and the last error. It changes nothing unless
// asked to repair what it can (Config.Fix).
//
//	rep := doctor.Run(doctor.Config{Version: v, GlobalDir: g, ProjectDir: p, LogPath: l})
//	fmt.Print(rep)
package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/install"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/settings"
	"github.com/ocmem/ocmem/internal/store"
)

// Config says what to check.
type Config struct {
	Version    string
	GlobalDir  string
	ProjectDir string // "" when the working directory is not in a project
	// ProjectChosen says the user named ProjectDir (--project,
	// OCMEM_PROJECT); a project root found in the repository is written
	// only when it is no link (store.Root.CheckWritable).
	ProjectChosen bool
	LogPath       string
	// Bin is the ocmem binary whose serve is started (default: this one).
	Bin string
	// Trust is the user's record of the project's accepted rules; nil
	// skips the report of project rules that are not in force.
	Trust engine.RuleTrust
	// Worktree and Directory locate the project's OpenCode config files;
	// OpenCodeConfigDir the user's (for project-level settings).
	Worktree, Directory, OpenCodeConfigDir string
	// Fix repairs what doctor can: OpenCode's cached copy of the npm
	// package without its binary is removed, so OpenCode installs it
	// again (install.RepairNpmCache).
	Fix bool
	// OpenCode is the OpenCode binary to report on (default: opencode on
	// PATH; none found is no failure).
	OpenCode string
}

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Fix says what to do when the check fails.
	Fix string `json:"fix,omitempty"`
}

// fenceChecks fails a root whose ROOT.md leaves a code fence open: every
// Markdown reader takes the rest of the file for code, so the person's
// sections after it are not what a forge or an editor shows.
func fenceChecks(c Config, rootMD map[store.Scope][]byte) []Check {
	var out []Check
	for _, r := range []struct {
		scope store.Scope
		dir   string
	}{{store.Global, c.GlobalDir}, {store.Project, c.ProjectDir}} {
		if line := compile.UnclosedFence(rootMD[r.scope]); line > 0 && r.dir != "" {
			out = append(out, Check{Name: string(r.scope) + " ROOT.md",
				Detail: fmt.Sprintf("%s:%d opens a code fence that is never closed", filepath.Join(r.dir, store.RootFile), line),
				Fix:    "close the code fence (a line of the same ``` or ~~~), or remove it"})
		}
	}
	return out
}

// Report is the doctor's answer.
type Report struct {
	Checks []Check `json:"checks"`
	// Info lines are facts, not checks (paths, the last injection).
	Info []string `json:"info"`
}

// OK reports whether every check passed.
func (r *Report) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func (r *Report) String() string {
	var b strings.Builder
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", mark, c.Name, c.Detail)
		if !c.OK && c.Fix != "" {
			fmt.Fprintf(&b, "     fix: %s\n", c.Fix)
		}
	}
	for _, l := range r.Info {
		fmt.Fprintf(&b, "     %s\n", l)
	}
	return b.String()
}

// Run performs every check.
func Run(c Config) *Report {
	r := &Report{}
	add := func(ch Check) { r.Checks = append(r.Checks, ch) }
	bin := c.Bin
	if bin == "" {
		bin, _ = os.Executable()
	}
	r.Info = append(r.Info, fmt.Sprintf("binary: %s (ocmem %s)", bin, c.Version))

	// Installation: global, and for the project when one is known.
	st, err := install.Inspect(install.Options{Bin: bin})
	switch {
	case err != nil:
		add(Check{Name: "plugin", Detail: err.Error()})
	default:
		projectSt, _ := install.Inspect(install.Options{Bin: bin, Project: true})
		viaProject := projectSt != nil && (projectSt.Registered || projectSt.Npm != "")
		add(Check{Name: "plugin registered", OK: st.Registered || st.Npm != "" || viaProject,
			Detail: registration(st, projectSt), Fix: "run `ocmem install` (or `ocmem install --project`)"})
		if ch, ok := twiceCheck(st, projectSt); ok {
			add(ch)
		}
		present := st
		if !st.Registered && st.Npm == "" && viaProject {
			present = projectSt
		}
		if present.Registered && present.Npm != "" {
			add(Check{Name: "plugin registered once", Detail: "both " + present.PluginPath + " and " + present.Npm + " are in " + present.ConfigPath + ": OpenCode loads ocmem twice",
				Fix: "run `ocmem install` from the one you want (it removes the other entry)"})
		}
		if present.Npm != "" {
			ch, info := npmCheck(present, c.Version, c.Fix)
			add(ch)
			r.Info = append(r.Info, info...)
		}
		if ch, ok := openCodeCheck(c.OpenCode, present); ok {
			add(ch)
		} else {
			r.Info = append(r.Info, "OpenCode: none found on PATH to check (ocmem supports 1.18.29 and later, and 2.x)")
		}
		if present.Registered || present.Npm == "" {
			add(Check{Name: "plugin file", OK: present.PluginPresent && present.PluginCurrent,
				Detail: pluginDetail(present), Fix: "run `ocmem install` (again, if the file is from another ocmem version or binary)"})
			if present.PluginPresent {
				if ch, ok := checkPluginBinary(present.PluginPath); ok {
					add(ch)
				}
			}
		}
	}

	// The git merge driver is optional (without it `ocmem compile` repairs
	// a conflict in ROOT.md's tables), so it is reported, not checked.
	switch cmd, current, skipped := install.MergeDriver(bin); {
	case skipped != "":
		r.Info = append(r.Info, "git merge driver for ROOT.md: not checked ("+skipped+")")
	case cmd == "":
		r.Info = append(r.Info, "git merge driver for ROOT.md: not registered (`ocmem install` registers it; see docs/SYNC.md)")
	case !current:
		r.Info = append(r.Info, "git merge driver for ROOT.md: runs another binary: "+cmd+" (`ocmem install` updates it)")
	default:
		r.Info = append(r.Info, "git merge driver for ROOT.md: registered")
	}

	// Roots.
	for _, ch := range rootChecks(c) {
		add(ch)
	}

	if ch, ok := projectRootCheck(c); ok {
		add(ch)
	}

	r.Info = append(r.Info, projectRulesInfo(c)...)
	r.Info = append(r.Info, projectSettingsInfo(c)...)
	if ch, info, ok := optionsCheck(c); ok {
		add(ch)
		r.Info = append(r.Info, info...)
	}

	// serve: start it, ping, ask for the stable tiers, stop it.
	add(checkServe(bin, c))

	// Log.
	if c.LogPath != "" {
		r.Info = append(r.Info, "log: "+c.LogPath)
		inj, lastErr := scanLog(c.LogPath)
		r.Info = append(r.Info, "last injection: "+orNone(inj), "last error: "+orNone(lastErr))
	}
	return r
}

// rootChecks loads both roots: what loads and what does not, ROOT.md's
// fences, and the rules' guards.
func rootChecks(c Config) []Check {
	e := engine.New(engine.Config{GlobalDir: c.GlobalDir, ProjectDir: c.ProjectDir})
	snap, err := e.Load()
	if err != nil {
		return []Check{{Name: "memory roots", Detail: err.Error()}}
	}
	count := map[string]int{}
	for _, f := range snap.Files() {
		count[string(f.Scope)]++
	}
	project := "project: none (not inside a git checkout; --project names one)"
	if c.ProjectDir != "" {
		project = fmt.Sprintf("project %s (%s)", c.ProjectDir, rootState(c.ProjectDir, count["project"]))
	}
	detail := fmt.Sprintf("global %s (%s); %s", c.GlobalDir, rootState(c.GlobalDir, count["global"]), project)
	out := []Check{{Name: "memory roots", OK: len(snap.Problems) == 0,
		Detail: detail + fmt.Sprintf("; %d file(s) that do not load", len(snap.Problems)),
		Fix:    "run `ocmem inspect` to see which files and why"}}
	out = append(out, fenceChecks(c, snap.RootMD)...)
	if ch, ok := guardsCheck(snap.Files()); ok {
		out = append(out, ch)
	}
	return out
}

// pluginBinLine is the line of the plugin file naming the binary it starts.
var pluginBinLine = regexp.MustCompile(`(?m)^const OCMEM_BIN = ("(?:[^"\\]|\\.)*");`)

// checkPluginBinary checks that the binary the installed plugin file starts
// exists: when it has moved, every turn runs without memory. ok is false
// when the file names no binary (it then looks for ocmem elsewhere).
func checkPluginBinary(pluginPath string) (Check, bool) {
	data, err := os.ReadFile(pluginPath)
	if err != nil {
		return Check{}, false
	}
	m := pluginBinLine.FindSubmatch(data)
	var bin string
	if m == nil || json.Unmarshal(m[1], &bin) != nil || bin == "" || bin == "__OCMEM_BIN__" {
		return Check{}, false
	}
	ch := Check{Name: "binary the plugin starts", Detail: bin, OK: true}
	info, err := os.Stat(bin)
	switch {
	case err != nil:
		ch.OK = false
		ch.Detail = bin + " does not exist: memory is off in OpenCode (each turn runs without it)"
		if found, err := exec.LookPath("ocmem"); err == nil {
			// The plugin then falls back to the one on PATH.
			ch.Detail = bin + " does not exist; the plugin falls back to " + found + " on PATH"
		}
		ch.Fix = "put ocmem back there, or run `ocmem install` with the binary you use now"
	case info.IsDir() || runtime.GOOS != "windows" && info.Mode()&0o111 == 0:
		ch.OK = false
		ch.Detail = bin + " is not an executable file: memory is off in OpenCode"
		ch.Fix = "run `ocmem install` with the binary you use now"
	}
	return ch, true
}

// twiceCheck reports ocmem registered both globally and in this project.
// The plugin runs once per directory whatever is registered (the copy
// OpenCode loads first acts, the other steps aside and logs why), so this
// is no failure; but the entry that steps aside is dead weight, and a
// person reading one config file cannot tell which runs. ok is false when
// there is one registration or none.
func twiceCheck(global, project *install.Status) (Check, bool) {
	if project == nil || (!global.Registered && global.Npm == "") || (!project.Registered && project.Npm == "") {
		return Check{}, false
	}
	return Check{Name: "plugin loaded once", OK: true,
		Detail: "ocmem is registered twice, in " + global.ConfigPath + " and in this project's " + project.ConfigPath +
			"; it runs once (the entry OpenCode loads first acts, the other steps aside and logs why). To keep one: " +
			"`ocmem uninstall --project` removes this project's entry, or, when that entry is committed for everyone, " +
			"`ocmem uninstall` removes your global one (memories stay either way)"}, true
}

func registration(global, project *install.Status) string {
	var parts []string
	if global.Registered {
		parts = append(parts, "in "+global.ConfigPath)
	}
	if global.Npm != "" {
		parts = append(parts, global.Npm+" (from npm) in "+global.ConfigPath)
	}
	if project != nil && project.Registered {
		parts = append(parts, "in "+project.ConfigPath+" (this project)")
	}
	if project != nil && project.Npm != "" {
		parts = append(parts, project.Npm+" (from npm) in "+project.ConfigPath+" (this project)")
	}
	if global.ConfigErr != "" {
		parts = append(parts, "cannot read "+global.ConfigPath+": "+global.ConfigErr)
	}
	if len(parts) == 0 {
		return "not in " + global.ConfigPath
	}
	return strings.Join(parts, "; ")
}

// npmCheck looks for a plugin entry from npm in OpenCode's cache, where
// OpenCode installs it at start (and, if that fails, says nothing), and
// says how to upgrade. With fix, an entry without its binary is removed.
func npmCheck(st *install.Status, version string, fix bool) (Check, []string) {
	ch := Check{Name: "plugin package"}
	c, err := install.InspectNpmCache(st.Npm)
	if err != nil {
		ch.Detail = err.Error()
		return ch, nil
	}
	switch {
	case c.Version == "":
		ch.Detail = st.Npm + " is not in OpenCode's cache (" + c.Dir + ")"
		ch.Fix = "start OpenCode once: it installs the package when it starts. If it is still missing, the install failed, which OpenCode does not log: " +
			"`opencode plugin " + st.Npm + " -g --force` shows why (npm registry settings, network)"
	case c.Binary == "" && fix:
		if removed, err := install.RepairNpmCache(st.Npm); err != nil {
			ch.Detail = err.Error()
		} else {
			ch.OK = true
			ch.Detail = "fixed: removed OpenCode's copy of " + st.Npm + ", which lacked its binary (" + removed + "); " +
				"OpenCode installs it again, with the binary, when it next starts: restart OpenCode"
		}
	case c.Binary == "":
		// OpenCode never installs an entry it has again, `opencode plugin
		// … --force` included: the entry has to go.
		ch.Detail = st.Npm + " is in OpenCode's cache (" + c.Dir + "), but not its binary package ocmem-" + install.NodePlatform() +
			": memory is off in OpenCode"
		ch.Fix = "run `npx " + st.Npm + " doctor --fix` (or `npx " + st.Npm + " install`): it removes OpenCode's copy, which OpenCode then installs again, " +
			"binary included, when it starts. If the binary is missing again, npm skips optional dependencies (see `npm config get omit`), " +
			"or ocmem has no binary for this platform: build it from a checkout and run its `ocmem install`"
	default:
		ch.OK = true
		ch.Detail = fmt.Sprintf("%s in OpenCode's cache: %s (ocmem %s, runs %s)", st.Npm, c.Dir, c.Version, c.Binary)
	}
	var info []string
	if st.Npm == "ocmem" {
		info = append(info, `the entry "ocmem" is not pinned: OpenCode installed what was latest then and never updates it; pin a version: `+
			"`opencode plugin ocmem@X.Y.Z -g --force`")
	} else {
		info = append(info, "to upgrade, change the pin: `opencode plugin ocmem@X.Y.Z -g --force`, `npx ocmem@X.Y.Z install`, or edit the entry; "+
			"OpenCode never updates an installed version by itself")
	}
	if c.Version != "" && c.Version != version {
		info = append(info, "this ocmem is "+version+"; OpenCode runs "+c.Version+" from its cache")
	}
	return ch, info
}

func pluginDetail(st *install.Status) string {
	switch {
	case !st.PluginPresent:
		return st.PluginPath + " is missing"
	case !st.PluginCurrent:
		return st.PluginPath + " differs from what this binary installs"
	}
	return st.PluginPath + " matches this binary"
}

// projectRootCheck reports a project root ocmem refuses to write to (a
// repository's .memory that is a link), before a write fails.
func projectRootCheck(c Config) (Check, bool) {
	if c.ProjectDir == "" {
		return Check{}, false
	}
	r := store.Root{Scope: store.Project, Dir: c.ProjectDir, Chosen: c.ProjectChosen}
	if err := r.CheckWritable(); err != nil {
		return Check{Name: "project root writable", Detail: err.Error(),
			Fix: "remove the link if the repository shipped it; to use it on purpose, name the root with --project or OCMEM_PROJECT"}, true
	}
	return Check{}, false
}

func rootState(dir string, n int) string {
	if dir == "" {
		return "none"
	}
	if _, err := os.Stat(dir); err != nil {
		return "not created yet"
	}
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// serveTimeout bounds the whole serve check; a cold start loads every
// memory, which is well under this even for large stores.
const serveTimeout = 20 * time.Second

func checkServe(bin string, c Config) Check {
	ch := Check{Name: "ocmem serve", Fix: "see the log; run `ocmem serve` by hand and type {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}
	ctx, cancel := context.WithTimeout(context.Background(), serveTimeout)
	defer cancel()
	args := []string{"serve", "--global", c.GlobalDir}
	if c.ProjectDir != "" {
		args = append(args, "--project", c.ProjectDir)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		ch.Detail = err.Error()
		return ch
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		ch.Detail = err.Error()
		return ch
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		ch.Detail = "cannot start: " + err.Error()
		return ch
	}
	defer cmd.Wait()
	defer in.Close()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"system","params":{}}`)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var version string
	var systemChars int
	got := 0
	for got < 2 && sc.Scan() {
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			ch.Detail = "unreadable reply: " + err.Error()
			return ch
		}
		if resp.Error != nil {
			ch.Detail = fmt.Sprintf("request %d failed: %s", resp.ID, resp.Error.Message)
			return ch
		}
		got++
		var res struct {
			Version string `json:"version"`
			Text    string `json:"text"`
		}
		json.Unmarshal(resp.Result, &res)
		if resp.ID == 1 {
			version = res.Version
		} else {
			systemChars = len([]rune(res.Text))
		}
	}
	if got < 2 {
		ch.Detail = "no answer: " + strings.TrimSpace(stderr.String())
		return ch
	}
	ch.OK = version == c.Version
	ch.Detail = fmt.Sprintf("answered in %v, version %s, %d characters of rules and outline", time.Since(start).Round(time.Millisecond), version, systemChars)
	if !ch.OK {
		ch.Detail += " (this binary is " + c.Version + ")"
		ch.Fix = "the plugin runs another ocmem binary; run `ocmem install` with the one you want"
	}
	return ch
}

// scanLog returns the last injection and the last warning or error in the
// JSON-lines log.
func scanLog(path string) (injection, lastErr string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	empty := 0 // turns after the last injection that had nothing to give
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		msg, _ := rec["msg"].(string)
		at, _ := rec["time"].(string)
		errText, _ := rec["err"].(string)
		switch {
		case msg == "bodies injected" && fmt.Sprint(rec["given"]) == "":
			empty++
		case msg == "bodies injected":
			injection = fmt.Sprintf("%s session %v: given %v (%v characters)", at, rec["session"], rec["given"], rec["chars"])
			empty = 0
		case intendedRefusal(errText):
			// Doing what it should (a secret or a duplicate refused) is
			// not an error.
		case rec["level"] == "ERROR" || rec["level"] == "WARN":
			lastErr = logProblem(at, msg, errText, rec)
		}
	}
	switch {
	case injection != "" && empty == 1:
		injection += "; the turn after it had nothing relevant"
	case injection != "" && empty > 1:
		injection += fmt.Sprintf("; %d later turns had nothing relevant", empty)
	}
	return injection, lastErr
}

// logProblem is a warning or error of the log on one line: when, what,
// which file (and line), and the error, each only when the record has it.
func logProblem(at, msg, errText string, rec map[string]any) string {
	s := at + " " + msg
	var where []string
	if path, _ := rec["path"].(string); path != "" {
		if line, ok := rec["line"].(float64); ok && line > 0 {
			path = fmt.Sprintf("%s:%d", path, int(line))
		}
		where = append(where, path)
	}
	for _, k := range []string{"rule", "change", "id", "stage"} {
		if v, ok := rec[k].(string); ok && v != "" {
			where = append(where, k+" "+v)
		}
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, ", ") + ")"
	}
	if errText != "" {
		s += ": " + errText
	}
	return s
}

// intendedRefusal reports whether a logged error is ocmem refusing what it
// should refuse: a suspected secret, a duplicate memory.
func intendedRefusal(err string) bool {
	return strings.HasPrefix(err, "refusing to write: possible secret") || strings.HasPrefix(err, "duplicate memory:")
}

// projectRulesInfo says, in one line, whether the project's hard rules are
// in force, and what to do about those that are not.
func projectRulesInfo(c Config) []string {
	if c.Trust == nil || c.ProjectDir == "" {
		return nil
	}
	rules, err := engine.New(engine.Config{ProjectDir: c.ProjectDir, Trust: c.Trust}).ProjectRules()
	switch {
	case err != nil:
		return []string{"project rules: cannot be read: " + err.Error()}
	case rules.TrustErr != "":
		return []string{"project rules: none in force, the trust list cannot be read: " + rules.TrustErr}
	case rules.Empty():
		return nil
	}
	var confirm []string
	if r := rules.Rules[0]; r.Key == engine.RootMDKey && !r.InForce {
		confirm = []string{"project rules: " + engine.ConfirmRootMD + "; `ocmem rules` shows them"}
	}
	return append(projectRulesCount(rules), confirm...)
}

// projectRulesCount says how many of the project's hard rules are in
// force, and what to do about those that are not.
func projectRulesCount(rules *engine.ProjectRules) []string {
	n, pending := len(rules.Rules), len(rules.Pending())
	fresh, changed := engine.ChangeCounts(rules.Pending())
	switch {
	case pending == 0:
		return []string{fmt.Sprintf("project rules: %d, all in force as you accepted them", n)}
	case !rules.Trusted && pending == n:
		return []string{fmt.Sprintf("project rules: %d, none in force: you have not trusted this project; read them (`ocmem rules`), then `ocmem trust`", n)}
	}
	var what []string
	if fresh > 0 {
		what = append(what, fmt.Sprintf("%d new", fresh))
	}
	if changed > 0 {
		what = append(what, fmt.Sprintf("%d changed", changed))
	}
	return []string{fmt.Sprintf("project rules: %d of %d not in force: %s since you accepted them (a pull, or an edit by hand); "+
		"review them (`ocmem rules`), then `ocmem trust` or `ocmem accept ID`", pending, n, strings.Join(what, ", "))}
}

// optionsCheck reads the ocmem options each OpenCode config file sets
// (the user's, then the project's) as serve will: serve uses the default
// for an option whose value it cannot use and says so once a session, so
// the check fails on such a value, naming the file, the key and what is
// wanted. Keys no option has are ignored by serve; they are listed as
// info, most being typos. ok is false when no config file sets options.
func optionsCheck(c Config) (ch Check, info []string, ok bool) {
	srcs := settings.Global(c.OpenCodeConfigDir)
	if c.Worktree != "" || c.Directory != "" {
		srcs = append(srcs, settings.Project(c.Worktree, c.Directory)...)
	}
	ch = Check{Name: "plugin options", OK: true, Fix: "correct the value in that file (README, Configuration)"}
	var bad, good []string
	for _, src := range srcs {
		if src.Options == nil {
			continue // unreadable files are reported with the project's settings
		}
		ok = true
		data, err := json.Marshal(src.Options)
		var probs []options.Problem
		if err == nil {
			_, probs, err = options.Read(data)
		}
		var wrong []string
		if err != nil {
			wrong = append(wrong, err.Error())
		}
		for _, p := range probs {
			if !p.Unknown() {
				wrong = append(wrong, p.String())
			}
		}
		if len(wrong) > 0 {
			bad = append(bad, src.Path+": "+strings.Join(wrong, "; "))
		} else {
			good = append(good, src.Path)
		}
		for _, u := range options.UnknownKeys(src.Options) {
			l := fmt.Sprintf("plugin option %q in %s is not an ocmem option and is ignored", u.Key, src.Path)
			if u.Near != "" {
				l += fmt.Sprintf(" (did you mean %q?)", u.Near)
			}
			info = append(info, l)
		}
	}
	if len(bad) > 0 {
		ch.OK = false
		ch.Detail = strings.Join(bad, "; ") + ": ocmem serve cannot use these values and runs with each option's default until you fix them"
	} else {
		ch.Detail = "read as serve reads them: " + strings.Join(good, ", ")
	}
	return ch, info, ok
}

// projectSettingsInfo lists the ocmem options a project's opencode.json
// sets among those that cost money or widen injection, and whether each
// applies.
func projectSettingsInfo(c Config) []string {
	if c.Worktree == "" && c.Directory == "" {
		return nil
	}
	trusted := false
	if c.Trust != nil {
		st, err := c.Trust.State()
		trusted = err == nil && st.Trusted
	}
	var out []string
	project := settings.Project(c.Worktree, c.Directory)
	for _, src := range project {
		if src.Err != "" {
			out = append(out, fmt.Sprintf("project setting: %s cannot be read: %s", src.Path, src.Err))
		}
	}
	_, overrides, err := settings.Guard(nil, settings.Global(c.OpenCodeConfigDir), project, trusted)
	if err != nil {
		return append(out, "project settings: "+err.Error())
	}
	for _, o := range overrides {
		out = append(out, "project setting: "+o.String())
	}
	return out
}

// guardsCheck reports the rules' enforce blocks, when any memory has one:
// every entry left out of what its rule stops, with file and line, since
// the person believes the rule binds a call it lets through.
func guardsCheck(files []*store.File) (Check, bool) {
	var bad []string
	n := 0
	for _, f := range files {
		n += len(f.Memory.Enforce)
		for _, p := range f.Memory.EnforceProblems {
			bad = append(bad, fmt.Sprintf("%s:%d: %v", f.Path, p.Line, p.Err))
		}
	}
	if n == 0 && len(bad) == 0 {
		return Check{}, false
	}
	if len(bad) > 0 {
		return Check{Name: "rule guards", Detail: fmt.Sprintf("%d guard(s) read; left out: %s", n, strings.Join(bad, "; ")),
			Fix: "correct the enforce block (tool → pattern → deny, ask or allow); the rule's text applies meanwhile, those guards do not"}, true
	}
	return Check{Name: "rule guards", OK: true, Detail: fmt.Sprintf("%d guard(s) read, none left out", n)}, true
}
