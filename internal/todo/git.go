package todo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Identity is the author and committer of every commit in a plan
// repository: the history says what csa did, not who ran it.
const (
	IdentityName  = "csa"
	IdentityEmail = "csa@localhost"
)

// git drives the git program on one plan repository, deaf to the user's
// and the system's git configuration and hooks.
type git struct {
	dir  string
	path string // the PATH git is looked for on
}

// env is all git sees of the environment: no GIT_DIR or GIT_INDEX_FILE
// of a caller running inside another repository's hook, no global or
// system config, a HOME of its own, a fixed identity.
func (g *git) env() []string {
	return []string{
		"PATH=" + g.path,
		"HOME=" + g.dir,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=" + IdentityName, "GIT_AUTHOR_EMAIL=" + IdentityEmail,
		"GIT_COMMITTER_NAME=" + IdentityName, "GIT_COMMITTER_EMAIL=" + IdentityEmail,
	}
}

// run runs git with args in the repository and returns its output.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	full := append([]string{
		"-C", g.dir,
		"-c", "core.hooksPath=" + os.DevNull, "-c", "commit.gpgsign=false",
		"-c", "core.autocrlf=false", "-c", "init.defaultBranch=main",
	}, args...)
	c, err := proc.Capture(ctx, proc.Spec{Path: g.program(), Args: full, Env: g.env(), Dir: g.dir, DieWithParent: true}, 2*time.Second)
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if c.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit %d: %s", args[0], c.ExitCode, strings.TrimSpace(c.Stderr))
	}
	return string(c.Stdout), nil
}

// program is git's path on g.path ("git" to let the start fail with a
// clear error when there is none).
func (g *git) program() string {
	for _, d := range filepath.SplitList(g.path) {
		p := filepath.Join(d, "git")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return "git"
}
