package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/rundir"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/sandbox"
)

// isolation is what req's run asks to have confined: --isolate, else
// tools.NAME.isolate, else [sandbox] fs and net.
func (j *job) isolation(tool string) (sandbox.Isolate, error) {
	word, key := j.o.Isolate, "--isolate"
	if word == "" {
		word, key = j.cfg.Tool(tool).Isolate, "tools."+tool+".isolate"
	}
	if word == "" {
		return sandbox.Isolate{FS: j.cfg.Sandbox.FS, Net: j.cfg.Sandbox.Net}, nil
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
	var tool *agents.Spec
	for _, s := range agents.Registry {
		if s.Tool == req.Tool {
			tool, w.OwnDirs, w.OwnFiles = s, s.StateDirs, s.StateFiles
		} else {
			w.Others = append(w.Others, s.Credentials...)
		}
	}
	r := sandbox.NewRequest(iso, j.cfg.Sandbox.Mode, w)
	if iso.Net && tool != nil {
		r.Net = j.netRequest(req, tool)
	}
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

// netRequest is what req's network may reach: the tool's model endpoints
// (its environment's *_BASE_URL, its configuration's), its API hosts and
// sandbox.allow_hosts, through the parent's proxy when csa runs inside a
// confined run.
func (j *job) netRequest(req *runner.Request, tool *agents.Spec) sandbox.NetRequest {
	environ := append(append([]string(nil), req.Environ...), req.ToolEnv...)
	getenv := func(key string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, _ := strings.Cut(environ[i], "="); k == key {
				return v
			}
		}
		return ""
	}
	e := agents.EndpointEnv{Getenv: getenv, Environ: environ, Cwd: req.Cwd}
	return sandbox.NetRequest{
		Endpoints: tool.ModelEndpoints(e),
		Hosts:     append(append([]string(nil), tool.APIHosts...), j.cfg.Sandbox.AllowHosts...),
		Proxy:     j.f.Getenv(csaenv.EgressProxy),
	}
}
