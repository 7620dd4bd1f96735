package plugin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// gitGrace is how long a cancelled git gets to stop before SIGKILL.
const gitGrace = 2 * time.Second

// runGit runs git with args in dir (never prompting for credentials) and
// returns its standard output.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("git is needed for a git marketplace: %w", err)
	}
	out, err := proc.Capture(ctx, proc.Spec{Path: git, Args: args, Dir: dir, DieWithParent: true,
		Env: append(os.Environ(), "GIT_TERMINAL_PROMPT=0")}, gitGrace)
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if out.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit %d: %s", args[0], out.ExitCode, strings.TrimSpace(out.Stderr))
	}
	return string(out.Stdout), nil
}

// clone makes a shallow clone of url (at ref, if given) in dir, as Claude
// Code does for a git marketplace.
func clone(ctx context.Context, url, ref, dir string) error {
	args := []string{"-c", "core.sshCommand=ssh -o BatchMode=yes -o StrictHostKeyChecking=yes",
		"clone", "--depth", "1", "--recurse-submodules", "--shallow-submodules"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	_, err := runGit(ctx, "", append(args, "--", url, dir)...)
	return err
}

// headCommit is the commit checked out in the git work tree holding dir,
// "" when dir is in none (or git is missing): installed_plugins.json's
// gitCommitSha.
func headCommit(ctx context.Context, dir string) string {
	out, err := runGit(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}
