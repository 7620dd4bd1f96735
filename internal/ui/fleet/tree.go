package fleet

import (
	"slices"
	"strings"
)

// Line is one row of the tree as a view lists it.
type Line struct {
	Row *Row
	// Level is the row's indentation: its depth among the rows shown (a
	// child whose parent is not listed starts a tree of its own).
	Level int
	// Kids is how many children it has; Hidden tells that they are
	// collapsed.
	Kids   int
	Hidden bool
}

// Tree lists rows as trees of their genealogy, roots oldest first and
// children under their parent, leaving out the descendants of collapsed
// sessions. With a filter, a row is listed when it, a descendant (the path
// to a match stays visible) or an ancestor (a match keeps its subtree)
// matches.
func Tree(rows []*Row, collapsed map[string]bool, filter string) []Line {
	byID := make(map[string]*Row, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	kids := map[string][]*Row{}
	var roots []*Row
	for _, r := range rows {
		if _, ok := byID[r.ParentID]; ok && r.ParentID != r.ID {
			kids[r.ParentID] = append(kids[r.ParentID], r)
		} else {
			roots = append(roots, r)
		}
	}
	older := func(a, b *Row) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortFunc(roots, older)
	for _, k := range kids {
		slices.SortFunc(k, older)
	}
	keep := func(r *Row) bool { return true }
	if filter != "" {
		match := map[string]bool{}
		var walk func(r *Row, inMatch bool) bool
		walk = func(r *Row, inMatch bool) bool {
			self := Matches(r, filter)
			m := self || inMatch
			for _, k := range kids[r.ID] {
				if walk(k, m) {
					m = true
				}
			}
			match[r.ID] = m
			return m
		}
		for _, r := range roots {
			walk(r, false)
		}
		keep = func(r *Row) bool { return match[r.ID] }
	}
	var out []Line
	var add func(r *Row, level int)
	add = func(r *Row, level int) {
		if !keep(r) {
			return
		}
		l := Line{Row: r, Level: level, Kids: len(kids[r.ID]), Hidden: collapsed[r.ID]}
		out = append(out, l)
		if l.Hidden {
			return
		}
		for _, k := range kids[r.ID] {
			add(k, level+1)
		}
	}
	for _, r := range roots {
		add(r, 0)
	}
	return out
}

// Matches tells whether a filter's words are each found (any case) in the
// row's id, tool, model, state, class or last line.
func Matches(r *Row, filter string) bool {
	hay := strings.ToLower(strings.Join([]string{r.ID, r.Tool, r.Model, r.State, string(r.Class), r.Label, r.LastLine, r.Project}, " "))
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Count is how many rows are in each class.
func Count(rows []*Row) map[Class]int {
	n := map[Class]int{}
	for _, r := range rows {
		n[r.Class]++
	}
	return n
}
