package cmdutil

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/statedir"
)

// Factory hands commands their dependencies. Nothing here has side effects
// until a command asks for it.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time
	// Executable is csa's own path, for starting detached supervisors.
	Executable func() (string, error)
	// JSON is the global --json flag.
	JSON bool
}

// Parent is the calling session when csa runs inside an agent.
func (f *Factory) Parent() (*runner.Parent, error) {
	p, err := runner.ParentFromEnv(f.Getenv)
	if err != nil {
		return nil, &Error{Code: "bad_environment", Exit: ExitUsage, Err: err}
	}
	return p, nil
}

// ForgetGoneParent drops a parent id that names no session of store, the
// store of the caller's project (runner.Parent.ForgetGone), and says so.
func (f *Factory) ForgetGoneParent(p *runner.Parent, store *session.Store) {
	if p.ForgetGone(store) {
		fmt.Fprintf(f.IO.ErrOut, "csa: warning: %s=%s names no session (removed?): the run records its parent as unknown (parent_unknown), at depth %d\n",
			csaenv.SessionID, p.Gone, p.Depth+1)
	}
}

// ProjectRoot is the project of dir. Inside an agent the caller's project
// is inherited, so a whole tree of runs lives in one store.
func (f *Factory) ProjectRoot(dir string) (string, error) {
	if f.Getenv(csaenv.SessionID) != "" {
		if r := f.Getenv(csaenv.ProjectRoot); filepath.IsAbs(r) {
			return r, nil
		}
	}
	return project.FindRoot(dir)
}

// CwdConfig loads the configuration of the current directory's project.
func (f *Factory) CwdConfig() (*config.Loaded, string, error) {
	root, err := f.ProjectRoot(".")
	if err != nil {
		return nil, "", err
	}
	l, err := f.Config(root)
	return l, root, err
}

// Config loads the merged configuration of a project.
func (f *Factory) Config(root string) (*config.Loaded, error) { return config.Load(root) }

// Hooks loads the merged hooks files of a project (hooks.toml beside the
// global config, then the project's .csa/hooks.toml).
func (f *Factory) Hooks(root string) (*config.LoadedHooks, error) { return config.LoadHooks(root) }

// StateDir is where csa keeps sessions: $CSA_STATE_DIR, else
// $XDG_STATE_HOME/csa, else ~/.local/state/csa.
func (f *Factory) StateDir() string { return statedir.Dir(f.Getenv) }

// ProjectsDir holds one directory per project.
func (f *Factory) ProjectsDir() string { return filepath.Join(f.StateDir(), "projects") }

// ProjectMarker names the file that records which project a state
// directory belongs to (read by `csa gc --global`).
const ProjectMarker = "project.root"

// Store opens the session store of the project at root.
func (f *Factory) Store(root string) (*session.Store, error) {
	dir := filepath.Join(f.ProjectsDir(), project.Slug(root))
	st, err := session.Open(filepath.Join(dir, "sessions"))
	if err != nil {
		return nil, err
	}
	marker := filepath.Join(dir, ProjectMarker)
	if _, err := os.Stat(marker); err != nil {
		fsutil.WriteFileAtomic(marker, []byte(root+"\n"))
	}
	return st, nil
}

// CwdProject is the current directory and its project's slug (the name
// of its state directories).
func (f *Factory) CwdProject() (cwd, slug string, err error) {
	if cwd, err = filepath.Abs("."); err != nil {
		return "", "", err
	}
	root, err := f.ProjectRoot(cwd)
	if err != nil {
		return "", "", err
	}
	return cwd, project.Slug(root), nil
}

// CwdStore opens the store of the current directory's project.
func (f *Factory) CwdStore() (*session.Store, string, error) {
	root, err := f.ProjectRoot(".")
	if err != nil {
		return nil, "", err
	}
	st, err := f.Store(root)
	return st, root, err
}

// AllStores opens the session store of every project under the state
// directory.
func (f *Factory) AllStores() ([]*session.Store, error) {
	dirs, err := filepath.Glob(filepath.Join(f.ProjectsDir(), "*", "sessions"))
	if err != nil {
		return nil, err
	}
	stores := make([]*session.Store, 0, len(dirs))
	for _, d := range dirs {
		s, err := session.Open(d)
		if err != nil {
			return nil, err
		}
		stores = append(stores, s)
	}
	return stores, nil
}

// Capabilities is the cached probe of this host's sandbox layers. Tests
// point it at a fake cgroup tree with CSA_TEST_CGROUP_ROOT and
// CSA_TEST_SELF_CGROUP.
func (f *Factory) Capabilities() *resource.Capabilities {
	return resource.Cached(f.capabilitiesFile(), f.host())
}

// ProbeAgain probes the host afresh and refreshes the cache (csa doctor).
func (f *Factory) ProbeAgain() *resource.Capabilities {
	os.Remove(f.capabilitiesFile())
	return f.Capabilities()
}

func (f *Factory) capabilitiesFile() string {
	return filepath.Join(f.StateDir(), resource.CapabilitiesFile)
}

func (f *Factory) host() resource.Host {
	h := resource.RealHost()
	if r := f.Getenv(csaenv.TestCgroupRoot); r != "" {
		h.CgroupRoot = r
	}
	if p := f.Getenv(csaenv.TestSelfCgroup); p != "" {
		h.SelfCgroup = p
	}
	return h
}
