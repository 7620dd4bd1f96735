// Package taskgraph runs tasks whose dependencies form a DAG as csa
// sub-agent runs: the checks of the graph (unknown dependencies, cycles),
// its levels, and one scheduler that starts ready tasks in dependency order
// up to a bound, blocks the dependents of a failed task and resumes runs
// an earlier scheduler started. What a task is written in (a plan's
// markdown, a batch file) and where its progress is recorded (git, a
// journal) belong to its callers: csa todo and csa batch.
package taskgraph

import (
	"fmt"
	"regexp"
	"strings"
)

// Node is a task as the graph sees it.
type Node struct {
	ID    string
	After []string // the ids of the tasks that must complete first
	Line  int      // where it is written, for messages (0: unknown)
}

var idRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ValidID reports whether id is a task id: letters, digits, '_', '.' and
// '-', beginning with a letter or digit.
func ValidID(id string) bool { return idRe.MatchString(id) }

// IDRule says what ValidID accepts, for messages.
const IDRule = "use letters, digits, '_', '.' and '-', beginning with a letter or digit"

// GraphError is a graph that cannot run, at the line of the task it names.
type GraphError struct {
	Line int
	Msg  string
}

func (e *GraphError) Error() string { return e.Msg }

// In places the error in file.
func (e *GraphError) In(file string) *FileError {
	return &FileError{File: file, Line: e.Line, Msg: e.Msg}
}

// FileError is a file of tasks (a plan, a batch) that cannot be read or
// run, at a line when known.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Check refuses a task defined twice, a dependency on an unknown task and
// a cycle, naming the tasks and, where known, their lines.
func Check(nodes []Node) error {
	at := map[string]int{}
	for i, n := range nodes {
		if j, ok := at[n.ID]; ok {
			return &GraphError{Line: n.Line, Msg: fmt.Sprintf("task %s is already defined%s", n.ID, atLine(nodes[j].Line))}
		}
		at[n.ID] = i
	}
	for _, n := range nodes {
		for _, d := range n.After {
			if _, ok := at[d]; !ok {
				return &GraphError{Line: n.Line, Msg: fmt.Sprintf("task %s depends on unknown task %s", n.ID, d)}
			}
		}
	}
	c := findCycle(nodes, at)
	if c == nil {
		return nil
	}
	ids := make([]string, len(c))
	where := make([]string, 0, len(c))
	for i, n := range c {
		ids[i] = n.ID
		if n.Line > 0 {
			where = append(where, fmt.Sprintf("%s at line %d", n.ID, n.Line))
		}
	}
	msg := fmt.Sprintf("cycle: %s -> %s", strings.Join(ids, " -> "), ids[0])
	if len(where) > 0 {
		msg += " (" + strings.Join(where, ", ") + ")"
	}
	return &GraphError{Line: c[0].Line, Msg: msg}
}

func atLine(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf(" at line %d", line)
}

// findCycle returns the members of a dependency cycle in the order they
// depend on each other, beginning with the one written first; nil when the
// graph is acyclic. The search goes in the order tasks are written, so the
// same graph always names the same cycle.
func findCycle(nodes []Node, at map[string]int) []Node {
	const (
		unseen = iota
		onPath
		finished
	)
	state := make([]int, len(nodes))
	var path, found []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = onPath
		path = append(path, i)
		for _, d := range nodes[i].After {
			j := at[d]
			switch state[j] {
			case onPath:
				for k, q := range path {
					if q == j {
						found = append([]int(nil), path[k:]...)
					}
				}
				return true
			case unseen:
				if visit(j) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = finished
		return false
	}
	for i := range nodes {
		if state[i] == unseen && visit(i) {
			break
		}
	}
	if found == nil {
		return nil
	}
	// The walk follows "depends on" edges; name the cycle from the task
	// written first.
	first := 0
	for k, i := range found {
		if i < found[first] {
			first = k
		}
	}
	var out []Node
	for _, i := range append(found[first:], found[:first]...) {
		out = append(out, nodes[i])
	}
	return out
}

// Levels groups the indexes of an acyclic graph's nodes by depth: level 0
// depends on nothing, level n on nodes of levels below n, at least one of
// n-1. Within a level nodes keep the order they are written in.
func Levels(nodes []Node) [][]int {
	at := index(nodes)
	depth := map[int]int{}
	var depthOf func(i int) int
	depthOf = func(i int) int {
		if d, ok := depth[i]; ok {
			return d
		}
		d := 0
		for _, id := range nodes[i].After {
			d = max(d, depthOf(at[id])+1)
		}
		depth[i] = d
		return d
	}
	var levels [][]int
	for i := range nodes {
		d := depthOf(i)
		for len(levels) <= d {
			levels = append(levels, nil)
		}
		levels[d] = append(levels[d], i)
	}
	return levels
}

// Dependents are the indexes of the nodes that depend on id, directly or
// not, in the order they are written.
func Dependents(nodes []Node, id string) []int {
	hit := map[string]bool{id: true}
	// Repeat until nothing new is found: graphs are small.
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			if hit[n.ID] {
				continue
			}
			for _, d := range n.After {
				if hit[d] {
					hit[n.ID], changed = true, true
					break
				}
			}
		}
	}
	var out []int
	for i, n := range nodes {
		if n.ID != id && hit[n.ID] {
			out = append(out, i)
		}
	}
	return out
}

func index(nodes []Node) map[string]int {
	at := make(map[string]int, len(nodes))
	for i, n := range nodes {
		at[n.ID] = i
	}
	return at
}
