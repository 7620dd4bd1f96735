package ps

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/radar"
)

// tree nests rows under their parents; rows whose parent is not listed
// become roots. A remote session is also known by its id on its worker
// (the parent its agent's own runs name).
func tree(rows []*Row) []*Row {
	byID := make(map[string]*Row, len(rows))
	for _, r := range rows {
		if r.Alias != "" {
			byID[r.Alias] = r
		}
	}
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

// costCell is a session's cost, "?" when its model has no price (its
// tokens are in csa inspect), "-" when it recorded no usage.
func costCell(r *Row) string {
	switch {
	case r.CostUSD != nil:
		return cost.Format(*r.CostUSD)
	case r.PriceUnknown:
		return "?"
	}
	return "-"
}

func printTable(w io.Writer, rows []*Row, now time.Time, withProject bool) {
	head := []string{"ID", "TOOL", "STATE", "DEPTH", "PARENT", "STARTED", "DURATION", "EXIT"}
	if withProject {
		head = append(head, "PROJECT")
	}
	// Worktree runs add their branch and change (csa run --worktree).
	withChange := false
	for _, r := range rows {
		withChange = withChange || r.Branch != ""
	}
	withOverlap := false
	for _, r := range rows {
		withOverlap = withOverlap || len(r.Overlaps) > 0
	}
	if withChange {
		head = append(head, "BRANCH", "CHANGE")
	}
	if withOverlap {
		head = append(head, "OVERLAPS")
	}
	// COST once some session's cost is known: a listing of models
	// without prices would only say "?".
	withCost := false
	for _, r := range rows {
		withCost = withCost || r.CostUSD != nil
	}
	if withCost {
		head = append(head, "COST")
	}
	cells := make([][]string, 0, len(rows)+1)
	cells = append(cells, head)
	for _, r := range rows {
		c := []string{r.ID, r.Tool, string(r.State), strconv.Itoa(r.Depth), short(r.ParentID), started(r, now), dur(r), exit(r)}
		if withProject {
			c = append(c, r.ProjectRoot)
		}
		if withChange {
			c = append(c, orDash(r.Branch), change(r))
		}
		if withOverlap {
			c = append(c, overlaps(r.Overlaps))
		}
		if withCost {
			c = append(c, costCell(r))
		}
		cells = append(cells, c)
	}
	// Column widths by hand: tabwriter is a tenth of a large listing's time.
	width := make([]int, len(head))
	for _, c := range cells {
		for i, v := range c {
			width[i] = max(width[i], len(v))
		}
	}
	bw := bufio.NewWriterSize(w, 64*1024)
	for _, c := range cells {
		for i, v := range c {
			bw.WriteString(v)
			if i < len(c)-1 {
				for n := len(v); n < width[i]+2; n++ {
					bw.WriteByte(' ')
				}
			}
		}
		bw.WriteByte('\n')
	}
	bw.Flush()
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

// change is the size of a worktree run's change, once recorded.
func change(r *Row) string {
	if !r.Recorded {
		return "-"
	}
	return fmt.Sprintf("%d files +%d -%d", r.Files, r.Insertions, r.Deletions)
}

// overlaps names the other live runs changing the same files, and the
// first file each shares: "01JF3K4Q2M f.txt (+2)".
func overlaps(ovs []radar.Overlap) string {
	if len(ovs) == 0 {
		return "-"
	}
	parts := make([]string, len(ovs))
	for i, o := range ovs {
		parts[i] = short(o.With) + " " + o.Paths[0]
		if n := len(o.Paths) - 1; n > 0 {
			parts[i] += fmt.Sprintf(" (+%d)", n)
		}
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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

// printJSON writes the rows, then the rows already encoded in raw, as a
// JSON array, one compact row per line: a listing may hold tens of
// thousands of rows, and indenting them would be most of its cost.
func printJSON(w io.Writer, rows []*Row, raw [][]byte) error {
	bw := bufio.NewWriterSize(w, 64*1024)
	bw.WriteString("[")
	var b []byte
	for i, r := range rows {
		var err error
		if len(r.Children) > 0 {
			b, err = json.Marshal(r)
		} else {
			b = r.AppendJSON(b[:0])
		}
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		bw.Write(b)
	}
	for i, b := range raw {
		if i > 0 || len(rows) > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		bw.Write(b)
	}
	if len(rows)+len(raw) > 0 {
		bw.WriteByte('\n')
	}
	bw.WriteString("]\n")
	return bw.Flush()
}
