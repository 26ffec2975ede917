package settings

import (
	"os"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
)

// Place is where an edge is asked to work: the command line's roots and
// working directory, or the worktree OpenCode reports with a request.
// Every edge resolves it here, so that a command, the plugin's process,
// the MCP server and the viewer find the same roots and trust alike.
type Place struct {
	// GlobalDir and ProjectDir are roots a person named (--global,
	// --project, $OCMEM_GLOBAL, $OCMEM_PROJECT); "" finds them.
	GlobalDir, ProjectDir string
	// Dir is the folder the project root is found from: a command's
	// working directory, or the worktree of a session's project.
	Dir string
	// Reported says Dir is the project worktree OpenCode reported: outside
	// git that folder is the project (its .memory is the project root),
	// where a command run outside git has no project root unless one is
	// named. The file system's root, which OpenCode reports for a session
	// with no project, is none.
	Reported bool
	// TrustFile is the user's trust list (internal/trust); "" trusts no
	// project.
	TrustFile string
}

// Roots returns the global and the project root of p; the project's is ""
// when there is none. The home folder is no project, even as a dotfiles
// checkout: its memories would be every project's (engine.IsHome).
func (p Place) Roots() (global, project string, err error) {
	global = p.GlobalDir
	if global == "" {
		if global, err = engine.GlobalDir(); err != nil {
			return "", "", err
		}
	}
	if p.ProjectDir != "" {
		return global, p.ProjectDir, nil
	}
	if p.Dir == "" || p.Reported && p.Dir == "/" {
		return global, "", nil
	}
	if p.Reported {
		project, err = engine.ProjectDir(p.Dir)
		return global, project, err
	}
	if root, err := engine.CanonicalRoot(p.Dir); err == nil && isGitCheckout(root) && !engine.IsHome(root) {
		project = filepath.Join(root, ".memory")
	}
	return global, project, nil
}

// Trusted reports whether the user trusts the project whose memory root is
// project (`ocmem trust`).
func (p Place) Trusted(project string) bool {
	return project != "" && engine.TrustList{Path: p.TrustFile}.Func(project)()
}

// Engine returns the configuration of an engine over p with opts: its
// roots, whether the project root was named (a named root is written
// wherever it leads, a found one only when it is no link), and the user's
// record of the project's accepted rules, read at each load.
func (p Place) Engine(opts options.Options) (engine.Config, error) {
	global, project, err := p.Roots()
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{GlobalDir: global, ProjectDir: project, ProjectChosen: p.ProjectDir != "", Options: opts,
		Trust: engine.TrustList{Path: p.TrustFile}.For(project)}, nil
}

func isGitCheckout(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}
