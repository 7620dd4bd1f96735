package gittree

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Trailer is the values of trailer key (CSA-Tool, say) in the commits
// from..to that touch any of paths, each value once, in git log's order.
func (g *Git) Trailer(ctx context.Context, dir, from, to, key string, paths []string) ([]string, error) {
	args := []string{"log", "-z", "--format=%(trailers:key=" + key + ",valueonly,separator=%x00)", from + ".." + to, "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	out, err := g.run(ctx, dir, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var vals []string
	for _, v := range splitZ(out) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals, nil
}

// Marked are those of paths whose content at commit still holds a
// conflict marker line as git writes them ("<<<<<<< " or ">>>>>>> " at
// the start of a line): a merge left unresolved. Binary files are not
// looked into.
func (g *Git) Marked(ctx context.Context, dir, commit string, paths []string) ([]string, error) {
	args := []string{"grep", "-l", "-z", "-I", "--no-color", "-E", "^(<{7}|>{7})( |$)", commit, "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	out, err := g.run(ctx, dir, nil, nil, args...)
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 { // nothing found
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var marked []string
	for _, p := range splitZ(out) {
		marked = append(marked, strings.TrimPrefix(p, commit+":"))
	}
	return marked, nil
}
