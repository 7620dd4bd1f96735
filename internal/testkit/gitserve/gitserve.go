// Package gitserve serves git repositories over smart HTTP for tests
// (git http-backend behind a local HTTP server): Claude Code accepts an
// http(s) URL for a git marketplace but not a file:// one, and dumb HTTP
// cannot serve the shallow clones it makes.
package gitserve

import (
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
)

// Repo makes the folder src a git repository with one commit of all its
// files and serves a bare copy of it: the URL to clone (ending in
// .git) and the commit.
func Repo(t *testing.T, src string) (url, commit string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run(src, "init", "-q", "-b", "main")
	run(src, "add", "-A")
	run(src, "commit", "-q", "-m", "marketplace")
	commit = string([]byte(run(src, "rev-parse", "HEAD"))[:40])
	root := t.TempDir()
	run(root, "clone", "-q", "--bare", src, "repo.git")
	srv := httptest.NewServer(&cgi.Handler{Path: git, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)
	return srv.URL + "/repo.git", commit
}
