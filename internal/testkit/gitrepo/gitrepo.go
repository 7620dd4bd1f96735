// Package gitrepo runs git for tests that build repositories: kept apart
// from the machine's and the user's git configuration, committing as a
// fixed identity, ending the test when git fails.
package gitrepo

import (
	"os"
	"os/exec"
	"testing"
)

// Env is the environment entries that keep git's system and global
// configuration out and commit as name <email>.
func Env(name, email string) []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
}

// Run runs git args in dir with this process's environment and env after
// it, and returns its combined output; a failure ends the test.
func Run(tb testing.TB, dir string, env []string, args ...string) string {
	tb.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}
