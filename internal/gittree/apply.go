package gittree

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Conflict: a diff does not apply to the work tree; nothing was changed.
type Conflict struct {
	Paths  []string
	Detail string // git apply's own words
}

func (c *Conflict) Error() string {
	return fmt.Sprintf("the diff does not apply to these paths: %s", strings.Join(c.Paths, ", "))
}

// Apply applies diff to the work tree holding dir, all of it or nothing
// (git apply's own rule), and returns the paths it touches; with check
// it only tells whether it would apply. A diff that does not apply is a
// *Conflict. The index is not touched.
func (g *Git) Apply(ctx context.Context, dir string, diff []byte, check bool) ([]string, error) {
	root, err := g.Top(ctx, dir)
	if err != nil {
		return nil, err
	}
	numstat, err := g.run(ctx, root, diff, nil, "apply", "--numstat", "-z", "-")
	if err != nil {
		return nil, err
	}
	paths := numstatPaths(numstat)
	args := []string{"apply", "--binary", "--whitespace=nowarn", "--check", "-"}
	if _, err := g.run(ctx, root, diff, nil, args...); err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return paths, &Conflict{Paths: conflictPaths(ge.stderr), Detail: strings.TrimSpace(ge.stderr)}
		}
		return paths, err
	}
	if check {
		return paths, nil
	}
	_, err = g.run(ctx, root, diff, nil, slices.DeleteFunc(args, func(a string) bool { return a == "--check" })...)
	return paths, err
}

// numstatPaths reads `git apply --numstat -z`: "ADDED\tDELETED\tPATH\0",
// or for a rename "ADDED\tDELETED\t\0FROM\0TO\0".
func numstatPaths(b []byte) []string {
	var out []string
	f := splitZ(b)
	for i := 0; i < len(f); i++ {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) < 3 {
			continue
		}
		if parts[2] == "" && i+2 < len(f) {
			out = append(out, f[i+2])
			i += 2
			continue
		}
		out = append(out, parts[2])
	}
	return out
}

// conflictLine finds the path in git apply's complaints: "error: patch
// failed: PATH:LINE", "error: PATH: already exists in working
// directory", "error: PATH: patch does not apply", ...
var conflictLine = regexp.MustCompile(`(?m)^error: (?:patch failed: (.+):\d+|(.+?): [^:]+)$`)

func conflictPaths(stderr string) []string {
	var out []string
	for _, m := range conflictLine.FindAllStringSubmatch(stderr, -1) {
		p := m[1]
		if p == "" {
			p = m[2]
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
