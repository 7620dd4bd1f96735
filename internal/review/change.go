package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Change is what a review looks at.
type Change struct {
	Mode  string   `json:"mode"`            // diff, range, branch, files or session
	Ref   string   `json:"ref,omitempty"`   // the range, the branch or the session
	Files []string `json:"files,omitempty"` // for files
	// What describes the change in the reviewers' prompt.
	What  string `json:"-"`
	Text  string `json:"-"`
	Bytes int    `json:"bytes"`
}

// Change modes.
const (
	ModeDiff   = "diff"
	ModeRange  = "range"
	ModeBranch = "branch"
	ModeFiles  = "files"
	// ModeSession is a worktree run's recorded change (csa run
	// --worktree): its snapshot of the caller's tree to its head.
	ModeSession = "session"
)

// ErrNothing is an empty change.
var ErrNothing = errors.New("nothing to review")

// GitTimeout bounds each git command.
const GitTimeout = 30 * time.Second

// UsageError is a change that cannot be collected because of what was
// asked (a bad ref, a missing file, not a git work tree).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Collect gathers the change in dir: `git diff HEAD` (staged and
// unstaged; against the empty tree before the first commit), `git diff
// A..B`, `git diff B...HEAD`, or the files' content.
// An empty change is ErrNothing.
// env is git's environment.
func Collect(ctx context.Context, dir string, env []string, mode, ref string, files []string) (*Change, error) {
	c := &Change{Mode: mode}
	var err error
	switch mode {
	case ModeDiff:
		c.What = "the uncommitted changes (git diff HEAD)"
		var base string
		if base, err = diffBase(ctx, dir, env); err != nil {
			return nil, err
		}
		if base != "HEAD" {
			c.What = "the staged and unstaged changes of a repository without a commit (git diff against the empty tree)"
		}
		c.Text, err = gitDiff(ctx, dir, env, base)
	case ModeRange:
		if !strings.Contains(ref, "..") {
			return nil, &UsageError{fmt.Errorf("--range %q: want A..B", ref)}
		}
		c.Ref, c.What = ref, "the commits "+ref+" (git diff "+ref+")"
		c.Text, err = gitDiff(ctx, dir, env, ref)
	case ModeBranch:
		c.Ref, c.What = ref, "the changes of this branch since "+ref+" (git diff "+ref+"...HEAD)"
		c.Text, err = gitDiff(ctx, dir, env, ref+"...HEAD")
	case ModeFiles:
		c.Files, c.What = files, "these files"
		c.Text, err = readFiles(dir, files)
	default:
		return nil, fmt.Errorf("unknown change mode %q", mode)
	}
	if err != nil {
		return nil, err
	}
	c.Bytes = len(c.Text)
	if strings.TrimSpace(c.Text) == "" {
		return nil, ErrNothing
	}
	return c, nil
}

// OfSession is the change run id recorded on branch: diff, from its
// snapshot to its head (takeback.Diff, which the caller runs in the run's
// repository). An empty diff is ErrNothing.
func OfSession(id, branch string, diff []byte) (*Change, error) {
	c := &Change{
		Mode: ModeSession, Ref: id, Text: string(diff), Bytes: len(diff),
		What: "the change run " + id + " made on its branch " + branch + " (from its snapshot of the caller's tree to its last commit)",
	}
	if strings.TrimSpace(c.Text) == "" {
		return nil, ErrNothing
	}
	return c, nil
}

// diffBase is what the uncommitted changes are compared with: HEAD, or
// git's empty tree while the repository has no commit. Anything else
// (not a repository, say) is left for git diff HEAD to report.
func diffBase(ctx context.Context, dir string, env []string) (string, error) {
	c, err := git(ctx, dir, env, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD: %w", err)
	}
	// Exit 1 with --verify --quiet: HEAD names no commit yet (128 outside
	// a repository).
	if c.ExitCode != 1 {
		return "HEAD", nil
	}
	// The empty tree's id depends on the object format (sha1, sha256).
	c, err = git(ctx, dir, env, "hash-object", "-t", "tree", os.DevNull)
	if err != nil {
		return "", fmt.Errorf("git hash-object: %w", err)
	}
	tree := strings.TrimSpace(string(c.Stdout))
	if c.ExitCode != 0 || tree == "" {
		return "", fmt.Errorf("git hash-object of the empty tree: exit status %d: %s", c.ExitCode, strings.TrimSpace(c.Stderr))
	}
	return tree, nil
}

func gitDiff(ctx context.Context, dir string, env []string, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", &UsageError{fmt.Errorf("%q is not a revision", rev)}
	}
	c, err := git(ctx, dir, env, "diff", "--no-color", "--no-ext-diff", rev, "--")
	if err != nil {
		return "", fmt.Errorf("git diff %s: %w", rev, err)
	}
	if c.ExitCode != 0 {
		msg := strings.TrimSpace(c.Stderr)
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", c.ExitCode)
		}
		return "", &UsageError{fmt.Errorf("git diff %s: %s", rev, msg)}
	}
	return string(c.Stdout), nil
}

// git runs one git command in dir, bounded by GitTimeout.
func git(ctx context.Context, dir string, env []string, args ...string) (*proc.Captured, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git is needed to collect the change: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	return proc.Capture(ctx, proc.Spec{
		Path: path, Args: args,
		Dir: dir, Env: append(append([]string(nil), env...), "GIT_PAGER=cat", "LC_ALL=C"), DieWithParent: true,
	}, time.Second)
}

// readFiles lists each file's path and content; files that are all
// blank are nothing to review.
func readFiles(dir string, files []string) (string, error) {
	var b strings.Builder
	blank := true
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return "", &UsageError{fmt.Errorf("--files: %w", err)}
		}
		blank = blank && strings.TrimSpace(string(data)) == ""
		fmt.Fprintf(&b, "=== %s ===\n%s", f, data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	if blank {
		return "", nil
	}
	return b.String(), nil
}
