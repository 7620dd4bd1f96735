package todo

import (
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// Check refuses a dependency on an unknown task and a cycle, naming the
// tasks and the lines they are written on.
func Check(p *Plan) error {
	for _, t := range p.Tasks {
		if t.Tool != "" && t.Tier != "" {
			return &ParseError{File: p.File, Line: t.Line, Msg: fmt.Sprintf("task %s: give tool: or tier:, not both", t.ID)}
		}
	}
	var ge *taskgraph.GraphError
	if err := taskgraph.Check(nodes(p)); errors.As(err, &ge) {
		return ge.In(p.File)
	} else if err != nil {
		return err
	}
	return nil
}

// Levels groups the tasks of an acyclic plan by depth (taskgraph.Levels).
func Levels(p *Plan) [][]*Task {
	var out [][]*Task
	for _, l := range taskgraph.Levels(nodes(p)) {
		var ts []*Task
		for _, i := range l {
			ts = append(ts, p.Tasks[i])
		}
		out = append(out, ts)
	}
	return out
}

func nodes(p *Plan) []taskgraph.Node {
	n := make([]taskgraph.Node, len(p.Tasks))
	for i, t := range p.Tasks {
		n[i] = taskgraph.Node{ID: t.ID, After: t.After, Line: t.Line}
	}
	return n
}
