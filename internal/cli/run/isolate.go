package run

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/rundir"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/sandbox"
)

// isolation is what req's run asks to have confined: --isolate, else
// tools.NAME.isolate, else [sandbox] fs.
func (j *job) isolation(tool string) (sandbox.Isolate, error) {
	word, key := j.o.Isolate, "--isolate"
	if word == "" {
		word, key = j.cfg.Tool(tool).Isolate, "tools."+tool+".isolate"
	}
	if word == "" {
		return sandbox.Isolate{FS: j.cfg.Sandbox.FS}, nil
	}
	iso, err := sandbox.ParseIsolate(word)
	if err != nil {
		return iso, cmdutil.Usagef("%s: %v", key, err)
	}
	return iso, nil
}

// confine decides req's sandbox policy; a required policy the kernel
// cannot enforce is refused before anything starts (exit 3).
func (j *job) confine(req *runner.Request) (*sandbox.Policy, error) {
	iso, err := j.isolation(string(req.Tool))
	if err != nil {
		return nil, err
	}
	if !iso.FS && !iso.Net {
		return nil, nil
	}
	home, tmp := j.f.Getenv("HOME"), j.f.Getenv("TMPDIR")
	if home == "" {
		return nil, cmdutil.Usagef("--isolate: HOME is not set: the secrets to deny are under it")
	}
	if tmp == "" {
		tmp = "/tmp" // os.TempDir's choice
	}
	w := sandbox.Where{Home: home, TempDir: tmp, StateDir: j.f.StateDir(),
		Also:     []string{filepath.Dir(j.store.Root())},
		DenyRead: j.cfg.Sandbox.DenyRead, AllowWrite: j.cfg.Sandbox.AllowWrite}
	if d, err := rundir.Dir(j.f.Getenv("XDG_RUNTIME_DIR")); err == nil {
		w.Also = append(w.Also, d)
	}
	for _, s := range agents.Registry {
		if s.Tool == req.Tool {
			w.OwnDirs, w.OwnFiles = s.StateDirs, s.StateFiles
		} else {
			w.Others = append(w.Others, s.Credentials...)
		}
	}
	r := sandbox.NewRequest(iso, j.cfg.Sandbox.Mode, w)
	// The caller's folder is checked against the secrets here; a worktree
	// run works in a new folder instead, added once made.
	if !req.Worktree {
		r.Write = append(r.Write, req.Cwd)
	}
	abi, why := sandbox.Probe()
	pol, err := sandbox.Decide(r, abi, why)
	var refused *sandbox.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, cmdutil.Refused("sandbox_unavailable", err)
	case err != nil:
		return nil, cmdutil.Usagef("[sandbox]: %v", err)
	}
	if pol.Warning != "" {
		fmt.Fprintln(j.f.IO.ErrOut, "csa: warning: sandbox: "+pol.Warning)
	}
	if pol.Confined() {
		if err := sandbox.MakeStateDirs(w); err != nil {
			return nil, fmt.Errorf("the tool's state directories: %w", err)
		}
	}
	return pol, nil
}
