package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/install"
)

// openCodeTimeout bounds `opencode --version` (1.5 s measured on 1.18.33).
const openCodeTimeout = 15 * time.Second

// OpenCode is the OpenCode binary found, and its version.
type OpenCode struct {
	Path    string
	Version string // as printed, "1.18.33" or "v2.0.15" reduced to "2.0.15"
	Major   int
}

var versionRE = regexp.MustCompile(`\bv?(\d+)\.(\d+)\.(\d+)\b`)

// ParseOpenCodeVersion reads what `opencode --version` prints: "1.18.33"
// on 1.x, "opencode v2.0.15" on 2.x.
func ParseOpenCodeVersion(out string) (version string, major, minor, patch int, ok bool) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", 0, 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	patch, _ = strconv.Atoi(m[3])
	return m[1] + "." + m[2] + "." + m[3], major, minor, patch, true
}

// findOpenCode runs bin (default: opencode on PATH) with --version, in a
// throw-away HOME so that nothing of the person's OpenCode is touched.
func findOpenCode(bin string) (*OpenCode, error) {
	if bin == "" {
		p, err := exec.LookPath("opencode")
		if err != nil {
			return nil, err
		}
		bin = p
	}
	home, err := os.MkdirTemp("", "ocmem-doctor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), openCodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(os.Environ(), "HOME="+home, "USERPROFILE="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"OPENCODE_DISABLE_AUTOUPDATE=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", bin, err)
	}
	v, major, _, _, ok := ParseOpenCodeVersion(string(out))
	if !ok {
		return nil, fmt.Errorf("%s --version printed %q", bin, strings.TrimSpace(string(out)))
	}
	return &OpenCode{Path: bin, Version: v, Major: major}, nil
}

// openCodeCheck says which OpenCode line was found and whether the ocmem
// entry of st loads there: 1.x reads only "plugin" and needs 1.18.29 or
// later for the plugin's { id, server } export; 2.x reads both lists but
// refuses a plugin entry that is a file (the plugin.js entry installs made
// before OpenCode 2 support).
func openCodeCheck(bin string, st *install.Status) (Check, bool) {
	oc, err := findOpenCode(bin)
	if err != nil {
		return Check{}, false
	}
	_, major, minor, patch, _ := ParseOpenCodeVersion(oc.Version)
	ch := Check{Name: "OpenCode", OK: true}
	line := fmt.Sprintf("OpenCode %s (the %d.x line) at %s", oc.Version, major, oc.Path)
	registered := st != nil && (st.Registered || st.Npm != "")
	switch {
	case major < 1 || major > 2:
		ch.Detail = line + ": not a line ocmem knows (it supports 1.18.29+ and 2.x); it may not load"
	case !registered:
		ch.Detail = line + ": ocmem is not registered for it (see above)"
	case major == 1 && (minor < 18 || minor == 18 && patch < 29):
		ch.OK = false
		ch.Detail = line + ": ocmem's plugin needs 1.18.29 or later, which calls a plugin's server()"
		ch.Fix = "upgrade OpenCode"
	case major == 1 && st.Key == "plugins":
		ch.OK = false
		ch.Detail = line + ": ocmem is registered only in \"plugins\" (OpenCode 2's list), which 1.x does not read, so it does not load"
		ch.Fix = "run `ocmem install`, or move the entry to \"plugin\", which both lines read"
	case major == 2 && st.Registered && strings.HasSuffix(st.PluginSpec, ".js"):
		ch.OK = false
		ch.Detail = line + ": ocmem is registered as the file " + st.PluginSpec + ", which OpenCode 2 refuses (\"configured plugin path must be a directory\"), so it does not load"
		ch.Fix = "run `ocmem install`: it registers the plugin's folder, which both lines load"
	default:
		ch.Detail = line + ": ocmem loads there"
		if major == 2 {
			ch.Detail += " (2.x: toasts show in the TUI only, and automatic extraction needs a long-lived OpenCode; docs/OPENCODE-NOTES.md)"
		}
	}
	return ch, true
}
