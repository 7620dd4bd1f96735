package resolve

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/takeback"
)

// Prompt is the resolver's task: the conflicting paths, how to read git's
// markers in them, and what each side did to them. Its first line is
// the subject of the commit that records the resolver's change.
func Prompt(k *takeback.Conflict) string {
	c := k.Change
	var b strings.Builder
	fmt.Fprintf(&b, "Resolve the merge conflicts of %s in this working tree.\n\n", c.Branch)
	fmt.Fprintf(&b, "The change that csa session %s (tool %s) made on branch %s is being merged into the current branch, and git could not merge these files by itself; it left conflict markers in them:\n", c.SessionID, c.Tool, c.Branch)
	for _, p := range k.Paths {
		fmt.Fprintf(&b, "  - %s\n", p)
	}
	b.WriteString("\nIn each file, the lines between a \"<<<<<<< \" marker line and the \"=======\" line are the current branch's version; the lines between \"=======\" and the \">>>>>>> \" line are the change's version (the markers name two commits csa made for the merge). ")
	b.WriteString("Edit each file so that it keeps what both sides meant to do, remove every conflict marker line, and change nothing else. Do not commit, merge or check out anything with git: csa records your edits when you end.\n\n")
	b.WriteString("What each side changed in these files since the point both started from:\n")
	for _, s := range k.Sides {
		fmt.Fprintf(&b, "\n%s\n", s.Ours.Path)
		hunks(&b, "the current branch", s.Ours)
		hunks(&b, "the change of session "+c.SessionID, s.Theirs)
	}
	return b.String()
}

func hunks(b *strings.Builder, side string, h gittree.PathHunks) {
	fmt.Fprintf(b, "  %s:\n", side)
	switch {
	case h.Binary:
		b.WriteString("    (a binary file: no lines to show)\n")
	case len(h.Hunks) == 0:
		b.WriteString("    (unchanged)\n")
	}
	for _, hunk := range h.Hunks {
		for _, l := range strings.Split(strings.TrimSuffix(hunk, "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
}
