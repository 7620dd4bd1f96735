package gittree

import (
	"bytes"
	"context"
)

// PathHunks is what from..to changes in one path: the hunks of its diff,
// each from its "@@" line on, or Binary (git shows no lines of it).
type PathHunks struct {
	Path   string
	Hunks  []string
	Binary bool
}

// Hunks is the diff from commit from to commit to of path alone, split
// into hunks: the lines a reader compares when two changes conflict. No
// hunks and not Binary: the path does not change.
func (g *Git) Hunks(ctx context.Context, dir, from, to, path string) (PathHunks, error) {
	// :(literal): a path is a name, never a pattern.
	out, err := g.run(ctx, dir, nil, nil, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
		"--src-prefix=a/", "--dst-prefix=b/", from, to, "--", ":(literal)"+path)
	if err != nil {
		return PathHunks{}, err
	}
	h := PathHunks{Path: path, Hunks: []string{}}
	var cur []byte
	for _, l := range bytes.SplitAfter(out, []byte("\n")) {
		switch {
		case bytes.HasPrefix(l, []byte("@@")):
			if cur != nil {
				h.Hunks = append(h.Hunks, string(cur))
			}
			cur = append([]byte{}, l...)
		case cur != nil:
			cur = append(cur, l...)
		case bytes.HasPrefix(l, []byte("Binary files ")):
			h.Binary = true
		}
	}
	if cur != nil {
		h.Hunks = append(h.Hunks, string(cur))
	}
	return h, nil
}
