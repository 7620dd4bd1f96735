package runner

import (
	"fmt"
	"os"

	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// SupervisorLogFile receives a detached supervisor's own diagnostics.
const SupervisorLogFile = "supervisor.log"

// LockFD and SlotFD are where a detached supervisor finds its inherited
// supervisor lock and concurrency slot.
const (
	LockFD = 3
	SlotFD = 4
)

// Detach hands a prepared run to a new supervising csa process (csaPath
// with args) in its own session, passing the held supervisor lock as fd 3,
// and returns without waiting. The run is never unsupervised: the lock is
// held by both processes until this one exits.
func Detach(store *session.Store, run *Run, csaPath string, args []string, env []string) (int, error) {
	logf, err := os.OpenFile(store.Path(run.Spec.SessionID, SupervisorLogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("detach: %w", err)
	}
	defer logf.Close()
	files := []*os.File{run.LockFile()}
	if f := run.SlotFile(); f != nil {
		files = append(files, f)
	}
	p, err := proc.Start(proc.Spec{
		Path: csaPath, Args: args, Env: env, Dir: "/",
		Stdout: logf, Stderr: logf, ExtraFiles: files,
	})
	if err != nil {
		return 0, fmt.Errorf("detach: %w", err)
	}
	run.Release()
	return p.Pid, nil
}
