// Package gittree moves a working tree between machines as git: the
// caller's HEAD and its uncommitted changes out (a snapshot that never
// touches the caller's index or working tree), a scratch checkout of them
// on a worker, the agent's changes back as a binary diff, and that diff
// applied to the caller's tree. Every git command goes through
// internal/proc.
package gittree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// ErrNotRepo: the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not inside a git work tree")

// ErrNoCommit: the repository has no commit to start from.
var ErrNoCommit = errors.New("the repository has no commit yet: a remote or worktree run starts from HEAD (commit something first)")

// Git runs the git program with an environment.
type Git struct {
	// Env is git's environment: the caller's, without the variables that
	// would point git at another repository or index (Clean).
	Env []string
	// NoHooks runs git with no hooks at all (a worker's scratch tree: a
	// checkout there must not run the worker user's hooks).
	NoHooks bool
}

// repoVars point git elsewhere than the directory it is run in (a caller
// running csa from inside a git hook has them set).
var repoVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES"}

// Clean is environ without repoVars, and with no terminal prompt (a
// remote asking for a password would block a worker for good).
func Clean(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		keep := name != "GIT_TERMINAL_PROMPT"
		for _, v := range repoVars {
			keep = keep && name != v
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_TERMINAL_PROMPT=0")
}

// gitError is a git command that failed, with the end of its stderr.
type gitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.args, " "), e.code, strings.TrimSpace(e.stderr))
}

// run runs git args in dir with stdin (nil: none) and extra environment,
// and returns its standard output.
func (g *Git) run(ctx context.Context, dir string, stdin []byte, extraEnv []string, args ...string) ([]byte, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git is not installed: %w", err)
	}
	full := []string{"-c", "core.quotePath=false"}
	if g.NoHooks {
		full = append(full, "-c", "core.hooksPath=/dev/null")
	}
	full = append(full, args...)
	spec := proc.Spec{Path: path, Args: full, Env: append(append([]string{}, g.Env...), extraEnv...), Dir: dir, DieWithParent: true}
	if stdin != nil {
		spec.Stdin = bytes.NewReader(stdin)
	}
	c, err := proc.Capture(ctx, spec, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	if c.ExitCode != 0 {
		return c.Stdout, &gitError{args: args, code: c.ExitCode, stderr: c.Stderr}
	}
	return c.Stdout, nil
}

// line is the first line of git's output.
func line(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(s)
}

// diffArgs make a diff any git applies: binary, full blob ids, the
// standard prefixes whatever diff.noprefix or diff.mnemonicPrefix say,
// and no external or text-converting drivers.
var diffArgs = []string{"diff", "--binary", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv",
	"--src-prefix=a/", "--dst-prefix=b/"}

// writeTree records dir's working tree (tracked files and untracked ones
// that are not ignored) in the index file index and returns its tree id.
func (g *Git) writeTree(ctx context.Context, dir, index string) (string, error) {
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := g.run(ctx, dir, nil, env, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	out, err := g.run(ctx, dir, nil, env, "write-tree")
	if err != nil {
		return "", err
	}
	return line(out), nil
}

// Top is the top directory of the work tree holding dir, or ErrNotRepo.
func (g *Git) Top(ctx context.Context, dir string) (string, error) {
	// One git for both answers: outside a work tree (in a .git folder)
	// the first is "false" and the second fails.
	out, err := g.run(ctx, dir, nil, nil, "rev-parse", "--is-inside-work-tree", "--show-toplevel")
	inside, top, _ := strings.Cut(string(out), "\n")
	if err != nil || inside != "true" {
		return "", fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	return line([]byte(top)), nil
}
