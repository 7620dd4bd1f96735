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
	Mode  string   `json:"mode"`            // diff, range, branch or files
	Ref   string   `json:"ref,omitempty"`   // the range or the branch
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
// unstaged), `git diff A..B`, `git diff B...HEAD`, or the files' content.
// An empty change is ErrNothing.
// env is git's environment.
func Collect(ctx context.Context, dir string, env []string, mode, ref string, files []string) (*Change, error) {
	c := &Change{Mode: mode}
	var err error
	switch mode {
	case ModeDiff:
		c.What = "the uncommitted changes (git diff HEAD)"
		c.Text, err = gitDiff(ctx, dir, env, "HEAD")
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

func gitDiff(ctx context.Context, dir string, env []string, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", &UsageError{fmt.Errorf("%q is not a revision", rev)}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("git is needed to collect the change: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	c, err := proc.Capture(ctx, proc.Spec{
		Path: git, Args: []string{"diff", "--no-color", "--no-ext-diff", rev, "--"},
		Dir: dir, Env: append(append([]string(nil), env...), "GIT_PAGER=cat", "LC_ALL=C"), DieWithParent: true,
	}, time.Second)
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
