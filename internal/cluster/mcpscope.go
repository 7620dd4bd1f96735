package cluster

import (
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/statedir"
)

// mcpScope is the project in which a remote run shares the instances of
// project-scoped MCP servers: its caller's, not its scratch tree (a
// project of its own, gone once the run has ended, that left one server
// per run behind). The caller's project root is a path on the caller's
// machine; where it is no directory here, a directory of this worker
// stands for it, one per caller project, holding what those servers keep
// in {project}. "" for a run in a directory of the worker (--remote-cwd):
// its own project is already a lasting one.
func (l *Local) mcpScope(req remoterun.Request) (string, error) {
	if req.Tree == nil || !filepath.IsAbs(req.ProjectRoot) {
		return "", nil
	}
	root := filepath.Clean(req.ProjectRoot)
	if fi, err := os.Stat(root); err == nil && fi.IsDir() {
		return root, nil
	}
	dir := filepath.Join(statedir.CallerProjects(l.Getenv), project.Slug(root))
	return dir, os.MkdirAll(dir, 0o700)
}
