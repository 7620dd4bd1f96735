package change

import (
	"fmt"
	"io"
	"strings"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/takeback"
)

// sidesView is one conflicting path of a blocked change in csa merge
// --json: its hunks on each side, from the run's snapshot.
type sidesView struct {
	Path string `json:"path"`
	// Ours: the current branch with the changes merged before it;
	// Theirs: the run's change.
	Ours   hunksView `json:"ours"`
	Theirs hunksView `json:"theirs"`
}

type hunksView struct {
	Hunks  []string `json:"hunks"` // each from its "@@" line on
	Binary bool     `json:"binary,omitempty"`
}

func sidesViews(sides []takeback.Sides) []sidesView {
	var v []sidesView
	for _, s := range sides {
		v = append(v, sidesView{Path: s.Ours.Path, Ours: hunksOf(s.Ours), Theirs: hunksOf(s.Theirs)})
	}
	return v
}

func hunksOf(h gittree.PathHunks) hunksView {
	hunks := h.Hunks
	if hunks == nil {
		hunks = []string{}
	}
	return hunksView{Hunks: hunks, Binary: h.Binary}
}

// printSides writes both sides' hunks of each conflicting path for a
// reader, indented under the path.
func printSides(w io.Writer, sides []takeback.Sides) {
	for _, s := range sides {
		fmt.Fprintf(w, "%s, both sides since the run's snapshot:\n", quoted(s.Ours.Path))
		printHunks(w, "ours (the current branch and the changes merged before it)", s.Ours)
		printHunks(w, "theirs (the run's change)", s.Theirs)
	}
}

func printHunks(w io.Writer, title string, h gittree.PathHunks) {
	fmt.Fprintf(w, "  %s:\n", title)
	switch {
	case h.Binary:
		fmt.Fprintln(w, "    (binary: no lines to show)")
	case len(h.Hunks) == 0:
		fmt.Fprintln(w, "    (unchanged)")
	}
	for _, hunk := range h.Hunks {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(hunk, "\n"), "\n") {
			fmt.Fprintf(w, "    %s", strings.TrimSuffix(l, "\n")+"\n")
		}
	}
}
