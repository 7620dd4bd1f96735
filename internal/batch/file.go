// Package batch runs a file of tasks with dependencies (TOML or JSON) as
// csa sub-agent runs on taskgraph's scheduler, recording each run in a
// journal under the state directory so that a killed batch can be
// resumed.
package batch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/taskgraph"
	"github.com/csa-dev/csa/internal/textfile"
)

// Task is one task of a batch file, as written (cwd made absolute).
type Task struct {
	ID        string   `toml:"id" json:"id"`
	Name      string   `toml:"name" json:"name,omitempty"`
	Prompt    string   `toml:"prompt" json:"prompt"`
	Tool      string   `toml:"tool" json:"tool,omitempty"`
	Tier      string   `toml:"tier" json:"tier,omitempty"`
	Model     string   `toml:"model" json:"model,omitempty"`
	DependsOn []string `toml:"depends_on" json:"depends_on,omitempty"`
	Cwd       string   `toml:"cwd" json:"cwd,omitempty"`
	Timeout   string   `toml:"timeout" json:"timeout,omitempty"`
	// Worktree, when written, says whether the task's run works in a git
	// worktree of its own; unwritten, the batch's --worktree decides.
	Worktree *bool `toml:"worktree" json:"worktree,omitempty"`
	// Isolate, when written, is what the task's run confines (as csa run
	// --isolate takes it); unwritten, the batch's --isolate decides.
	Isolate string `toml:"isolate" json:"isolate,omitempty"`
	// Line is where the task begins in its file (0: unknown).
	Line int `toml:"-" json:"-"`
}

// FileError is a batch file that cannot run, at a line when known.
type FileError = taskgraph.FileError

// ReadFile reads and checks the batch file at path.
func ReadFile(path string) ([]Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{File: path, Msg: "cannot read it: " + errors.Unwrap(err).Error()}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, filepath.Dir(abs), data)
}

// Parse reads a batch file's tasks (file names it in errors; relative cwd
// are taken from dir) and refuses, before anything runs: unknown keys,
// missing ids and prompts, bad ids, tools, timeouts, isolate words and
// directories, duplicate ids, unknown dependencies and cycles. JSON is a
// file whose name ends .json, or whose text begins with '{' or '['; TOML
// otherwise.
func Parse(file, dir string, data []byte) ([]Task, error) {
	if bad := textfile.Check(data); bad != nil {
		return nil, &FileError{File: file, Line: bad.Line, Msg: bad.Error() + " (a batch file is UTF-8 TOML or JSON)"}
	}
	var tasks []Task
	var err error
	if isJSON(file, data) {
		tasks, err = parseJSON(file, data)
	} else {
		tasks, err = parseTOML(file, data)
	}
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, &FileError{File: file, Msg: "no tasks (TOML: [[task]] tables; JSON: {\"tasks\": [...]} or [...])"}
	}
	for i := range tasks {
		if err := check(&tasks[i], i, dir); err != nil {
			return nil, &FileError{File: file, Line: tasks[i].Line, Msg: err.Error()}
		}
	}
	var ge *taskgraph.GraphError
	if err := taskgraph.Check(nodes(tasks)); errors.As(err, &ge) {
		return nil, ge.In(file)
	}
	return tasks, nil
}

func isJSON(file string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json":
		return true
	case ".toml":
		return false
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// check refuses what csa run would refuse of a task, and makes its cwd
// absolute.
func check(t *Task, i int, dir string) error {
	switch {
	case t.ID == "":
		return fmt.Errorf("task %d has no id", i+1)
	case !taskgraph.ValidID(t.ID):
		return fmt.Errorf("task id %q: %s", t.ID, taskgraph.IDRule)
	case strings.TrimSpace(t.Prompt) == "":
		return fmt.Errorf("task %s has no prompt", t.ID)
	case t.Tool != "" && t.Tier != "":
		return fmt.Errorf("task %s: give tool or tier, not both", t.ID)
	}
	if _, ok := agents.Lookup(t.Tool); t.Tool != "" && t.Tool != "auto" && !ok {
		return fmt.Errorf("task %s: unknown tool %q (known tools: %s, auto)", t.ID, t.Tool, agents.Names())
	}
	for _, d := range t.DependsOn {
		if d == "" {
			return fmt.Errorf("task %s: an empty id in depends_on", t.ID)
		}
	}
	if t.Timeout != "" {
		if d, err := time.ParseDuration(t.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("task %s: timeout %q: want a positive duration such as 90s or 10m", t.ID, t.Timeout)
		}
	}
	if t.Isolate != "" {
		if _, err := sandbox.ParseIsolate(t.Isolate); err != nil {
			return fmt.Errorf("task %s: isolate %v", t.ID, err)
		}
	}
	if t.Cwd != "" {
		if !filepath.IsAbs(t.Cwd) {
			t.Cwd = filepath.Join(dir, t.Cwd)
		}
		if st, err := os.Stat(t.Cwd); err != nil || !st.IsDir() {
			return fmt.Errorf("task %s: cwd %s is not a directory", t.ID, t.Cwd)
		}
	}
	return nil
}

func nodes(tasks []Task) []taskgraph.Node {
	out := make([]taskgraph.Node, len(tasks))
	for i, t := range tasks {
		out[i] = t.node()
	}
	return out
}

func (t Task) node() taskgraph.Node {
	return taskgraph.Node{ID: t.ID, After: t.DependsOn, Line: t.Line}
}

// graphTask is t as the scheduler runs it; t has passed check.
func (t Task) graphTask() *taskgraph.Task {
	timeout, _ := time.ParseDuration(t.Timeout)
	return &taskgraph.Task{
		Node: t.node(),
		Spec: taskgraph.Spec{Prompt: t.Prompt, Tool: t.Tool, Tier: t.Tier, Model: t.Model, Dir: t.Cwd, Timeout: timeout, Worktree: t.Worktree, Isolate: t.Isolate},
	}
}
