package toolcache

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/proc"
)

// versionTimeout bounds a program's --version (some start slowly).
const versionTimeout = 10 * time.Second

// Version is the version of p's program found at path, the one answer
// csa tools and csa doctor give. A program of p's npm package (in csa's
// cache, or installed by npm elsewhere) has its package's version, read
// from its package.json without starting it: gemini's --version takes
// seconds, ten and more on a busy machine, and was lost to the time
// limit. Any other program says it with --version (its first line).
func Version(ctx context.Context, path string, p agents.Program) (string, error) {
	if v, ok := packageVersion(path, p.Package); ok {
		return v, nil
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	b, err := proc.Output(ctx, path, "--version")
	return firstLine(string(b)), err
}

// packageVersion finds, above the file path's link leads to, the
// package.json of the npm package pkg, and returns its version.
func packageVersion(path, pkg string) (string, bool) {
	if pkg == "" {
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
			var m struct{ Name, Version string }
			if json.Unmarshal(b, &m) == nil && m.Name == pkg && m.Version != "" {
				return m.Version, true
			}
		}
		if parent := filepath.Dir(dir); parent == dir || filepath.Base(dir) == "node_modules" {
			return "", false
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
