package change

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/csa-dev/csa/internal/batch"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
	"github.com/csa-dev/csa/internal/todo"
	wf "github.com/csa-dev/csa/internal/workflow"
)

// source is where csa merge --queue takes its changes from: a batch, a
// todo plan or a workflow run, named by one of its flags.
type source struct {
	Batch, Plan, Workflow string
}

func (s source) given() int {
	n := 0
	for _, v := range []string{s.Batch, s.Plan, s.Workflow} {
		if v != "" {
			n++
		}
	}
	return n
}

// flag is the flag given.
func (s source) flag() string {
	switch {
	case s.Batch != "":
		return "batch"
	case s.Plan != "":
		return "plan"
	}
	return "workflow"
}

// changes are the source's runs' changes in its order (a batch's and a
// plan's tasks as written, a workflow's steps as run), each note of a
// run left out said on stderr. A source with a run not ended, or none
// with a change, is refused (exit 3).
func (s source) changes(ctx context.Context, f *cmdutil.Factory) ([]*takeback.Change, error) {
	name, dir, runs, err := s.runs(f)
	if err != nil {
		return nil, err
	}
	root, err := f.ProjectRoot(dir)
	if err != nil {
		return nil, err
	}
	store, err := f.Store(root)
	if err != nil {
		return nil, err
	}
	changes, skipped, err := takeback.Gather(runs, func(id string) (*session.State, error) { return f.Current(ctx, store, id) })
	var sr *takeback.StillRunningError
	if errors.As(err, &sr) {
		return nil, cmdutil.Refused("running", fmt.Errorf("%s: %w", name, err))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, sk := range skipped {
		fmt.Fprintf(f.IO.ErrOut, "csa merge: %s: %s left out: %s\n", name, sk.Task, sk.Why)
	}
	if len(changes) == 0 {
		return nil, cmdutil.Refused("no_change", &takeback.NoneError{Source: name})
	}
	return changes, nil
}

// runs reads the source's runs through its own package: its name for
// notes, the directory its runs ran in (their sessions are that
// project's), and each task's or step's last run in order.
func (s source) runs(f *cmdutil.Factory) (name, dir string, runs []takeback.Run, err error) {
	switch {
	case s.Batch != "":
		return batchRuns(f, s.Batch)
	case s.Plan != "":
		return planRuns(f, s.Plan)
	}
	return workflowRuns(f, s.Workflow)
}

func batchRuns(f *cmdutil.Factory, arg string) (string, string, []takeback.Run, error) {
	_, slug, err := f.CwdProject()
	if err != nil {
		return "", "", nil, err
	}
	store := batch.ProjectStore(filepath.Join(f.ProjectsDir(), slug))
	id, err := store.Resolve(arg)
	if err != nil {
		return "", "", nil, notFound(err)
	}
	b, err := store.Get(id)
	if err != nil {
		return "", "", nil, err
	}
	// Without a session store, a run the journal left open is reported
	// running: Gather asks its session whether it ended.
	sum, err := batch.Status(store, id, nil)
	if err != nil {
		return "", "", nil, err
	}
	var runs []takeback.Run
	for _, t := range sum.Tasks {
		runs = append(runs, takeback.Run{Task: "task " + t.ID, SessionID: t.SessionID})
	}
	return "batch " + id, b.Dir, runs, nil
}

func planRuns(f *cmdutil.Factory, arg string) (string, string, []takeback.Run, error) {
	cwd, slug, err := f.CwdProject()
	if err != nil {
		return "", "", nil, err
	}
	store := todo.Open(f.StateDir(), slug, f.Getenv("PATH"))
	id, err := store.Resolve(arg)
	if err != nil {
		return "", "", nil, notFound(err)
	}
	p, err := store.Get(id)
	if err != nil {
		return "", "", nil, err
	}
	var runs []takeback.Run
	for _, t := range p.Tasks {
		runs = append(runs, takeback.Run{Task: "task " + t.ID, SessionID: t.Session})
	}
	// csa todo run runs a plan's tasks from the project they belong to.
	return "plan " + id, cwd, runs, nil
}

func workflowRuns(f *cmdutil.Factory, arg string) (string, string, []takeback.Run, error) {
	store := wf.OpenStore(f.StateDir())
	id, err := store.Resolve(arg)
	if err != nil {
		return "", "", nil, notFound(err)
	}
	st, err := store.Status(id)
	if err != nil {
		return "", "", nil, err
	}
	var runs []takeback.Run
	for _, r := range st.Steps {
		if r.SessionID == "" { // a shell step, or one skipped: no run of an agent
			continue
		}
		runs = append(runs, takeback.Run{Task: "step " + r.Key, SessionID: r.SessionID})
	}
	return "workflow run " + id, st.Dir, runs, nil
}

// notFound is a source id that names none, or several: a usage error.
func notFound(err error) error {
	var bnf *batch.NotFoundError
	var pnf *todo.NotFoundError
	var wnf *wf.NotFoundError
	if errors.As(err, &bnf) || errors.As(err, &pnf) || errors.As(err, &wnf) {
		return &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
	}
	return &cmdutil.Error{Code: "invalid_id", Exit: cmdutil.ExitUsage, Err: err}
}
