package todo

import (
	"fmt"
	"strings"
)

// Check refuses a dependency on an unknown task and a cycle, naming the
// tasks and the lines they are written on.
func Check(p *Plan) error {
	for _, t := range p.Tasks {
		if t.Tool != "" && t.Tier != "" {
			return &ParseError{File: p.File, Line: t.Line, Msg: fmt.Sprintf("task %s: give tool: or tier:, not both", t.ID)}
		}
		for _, d := range t.After {
			if p.Task(d) == nil {
				return &ParseError{File: p.File, Line: t.Line, Msg: fmt.Sprintf("task %s depends on unknown task %s", t.ID, d)}
			}
		}
	}
	if c := findCycle(p); c != nil {
		ids := make([]string, len(c))
		where := make([]string, len(c))
		for i, t := range c {
			ids[i] = t.ID
			where[i] = fmt.Sprintf("%s at line %d", t.ID, t.Line)
		}
		return &ParseError{File: p.File, Line: c[0].Line, Msg: fmt.Sprintf("cycle: %s -> %s (%s)",
			strings.Join(ids, " -> "), ids[0], strings.Join(where, ", "))}
	}
	return nil
}

// findCycle returns the members of a dependency cycle in the order they
// depend on each other, beginning with the one written first; nil when the
// graph is acyclic. The search goes in the order tasks are written, so the
// same plan always names the same cycle.
func findCycle(p *Plan) []*Task {
	const (
		unseen = iota
		onPath
		finished
	)
	state := map[string]int{}
	var path []*Task
	var found []*Task
	var visit func(t *Task) bool
	visit = func(t *Task) bool {
		state[t.ID] = onPath
		path = append(path, t)
		for _, d := range t.After {
			switch state[d] {
			case onPath:
				for i, q := range path {
					if q.ID == d {
						found = append([]*Task(nil), path[i:]...)
					}
				}
				return true
			case unseen:
				if visit(p.Task(d)) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[t.ID] = finished
		return false
	}
	for _, t := range p.Tasks {
		if state[t.ID] == unseen && visit(t) {
			break
		}
	}
	if found == nil {
		return nil
	}
	// The walk follows "depends on" edges; name the cycle from the task
	// written first.
	first := 0
	for i, t := range found {
		if t.Line < found[first].Line {
			first = i
		}
	}
	return append(found[first:], found[:first]...)
}

// Levels groups the tasks of an acyclic plan by depth: level 0 depends on
// nothing, level n on tasks of levels below n, at least one of n-1. Within a
// level tasks keep the order they are written in.
func Levels(p *Plan) [][]*Task {
	depth := map[string]int{}
	var depthOf func(t *Task) int
	depthOf = func(t *Task) int {
		if d, ok := depth[t.ID]; ok {
			return d
		}
		d := 0
		for _, id := range t.After {
			if dd := depthOf(p.Task(id)) + 1; dd > d {
				d = dd
			}
		}
		depth[t.ID] = d
		return d
	}
	var levels [][]*Task
	for _, t := range p.Tasks {
		d := depthOf(t)
		for len(levels) <= d {
			levels = append(levels, nil)
		}
		levels[d] = append(levels[d], t)
	}
	return levels
}

// Dependents are the tasks that depend on id, directly or not, in the
// order they are written.
func Dependents(p *Plan, id string) []*Task {
	hit := map[string]bool{id: true}
	var out []*Task
	// Repeat until nothing new is found: plans are small.
	for changed := true; changed; {
		changed = false
		for _, t := range p.Tasks {
			if hit[t.ID] {
				continue
			}
			for _, d := range t.After {
				if hit[d] {
					hit[t.ID], changed = true, true
					out = append(out, t)
					break
				}
			}
		}
	}
	// out was collected in discovery order; give it in written order.
	var ordered []*Task
	for _, t := range p.Tasks {
		for _, o := range out {
			if o == t {
				ordered = append(ordered, t)
			}
		}
	}
	return ordered
}
