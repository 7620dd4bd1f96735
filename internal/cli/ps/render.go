package ps

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// tree nests rows under their parents; rows whose parent is not listed
// become roots.
func tree(rows []*Row) []*Row {
	byID := make(map[string]*Row, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	var roots []*Row
	for _, r := range rows {
		if p, ok := byID[r.ParentID]; ok && r.ParentID != r.ID {
			p.Children = append(p.Children, r)
		} else {
			roots = append(roots, r)
		}
	}
	return roots
}

func printTable(w io.Writer, rows []*Row, now time.Time, withProject bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "ID\tTOOL\tSTATE\tDEPTH\tPARENT\tSTARTED\tDURATION\tEXIT"
	if withProject {
		head += "\tPROJECT"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		line := fmt.Sprintf("%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s", r.ID, r.Tool, r.State, r.Depth, short(r.ParentID),
			started(r, now), dur(r), exit(r))
		if withProject {
			line += "\t" + r.ProjectRoot
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

func printTree(w io.Writer, roots []*Row, now time.Time) {
	var walk func(r *Row, prefix string, last, root bool)
	walk = func(r *Row, prefix string, last, root bool) {
		branch, next := "", ""
		if !root {
			branch, next = "├── ", "│   "
			if last {
				branch, next = "└── ", "    "
			}
		}
		fmt.Fprintf(w, "%s%s%s  %s  %s  %s  exit=%s\n", prefix, branch, r.ID, r.Tool, r.State, dur(r), exit(r))
		for i, c := range r.Children {
			walk(c, prefix+next, i == len(r.Children)-1, false)
		}
	}
	for _, r := range roots {
		walk(r, "", true, true)
	}
}

func short(id string) string {
	if id == "" {
		return "-"
	}
	return id[:min(len(id), 10)]
}

func started(r *Row, now time.Time) string {
	if r.StartedAt == nil {
		return "-"
	}
	if now.Sub(*r.StartedAt) < 24*time.Hour {
		return r.StartedAt.Local().Format("15:04:05")
	}
	return r.StartedAt.Local().Format("2006-01-02")
}

func dur(r *Row) string {
	if r.StartedAt == nil {
		return "-"
	}
	d := time.Duration(r.DurationMS) * time.Millisecond
	if d >= 10*time.Second {
		d = d.Round(time.Second)
	}
	return d.String()
}

func exit(r *Row) string {
	if r.ExitCode == nil {
		return "-"
	}
	return strconv.Itoa(*r.ExitCode)
}
