package prompt

import (
	"os"
	"path/filepath"
	"strings"
)

// gitState finds the repository above dir and its branch by reading .git
// directly: running git would cost milliseconds of start-up on every run.
func gitState(dir string) (root, branch string, ok bool) {
	for d := dir; ; {
		g := filepath.Join(d, ".git")
		if fi, err := os.Stat(g); err == nil {
			return d, head(g, fi.IsDir()), true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// head reads the branch from HEAD; a worktree's .git is a file naming the
// real git directory.
func head(g string, isDir bool) string {
	if !isDir {
		data, err := os.ReadFile(g)
		if err != nil {
			return ""
		}
		g = strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir:"))
	}
	data, err := os.ReadFile(filepath.Join(g, "HEAD"))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
		return ref
	}
	if len(s) >= 12 {
		return "detached at " + s[:12]
	}
	return ""
}

// ProjectRoot is the git repository holding dir, else dir itself.
func ProjectRoot(dir string) string {
	if root, _, ok := gitState(dir); ok {
		return root
	}
	return dir
}
