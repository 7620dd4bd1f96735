package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/statedir"
	"github.com/csa-dev/csa/internal/toolcache"
)

// Local starts runs on this machine with its own csa, as a detached local
// run, so that this machine's configuration, limits, adapters, slots and
// pre-flight check apply to a remote run as to any other.
type Local struct {
	CSA    string // csa's executable
	Config *config.Config
	Env    []string // the worker's environment; genealogy variables are set per run
	Getenv func(string) string
}

// CanRun says why this machine cannot run req now: its tool not enabled,
// not installed, or too little free memory for it (the pre-flight check,
// unless the run asked for none); nil when it can.
func (l *Local) CanRun(req remoterun.Request) error {
	tool := req.Tool
	spec, ok := agents.Lookup(tool)
	if !ok {
		return fmt.Errorf("unknown tool %q", tool)
	}
	tc := l.Config.Tool(tool)
	if !tc.Enabled {
		return fmt.Errorf("%s is not enabled here", tool)
	}
	if _, err := toolcache.Locate(tc.Path, spec.Program); err != nil {
		return fmt.Errorf("%s is not installed here: %w", tool, err)
	}
	if slices.Contains(req.RunFlags, "no-preflight=true") {
		return nil
	}
	mi, err := resource.ReadMemInfo("/proc/meminfo")
	if err != nil {
		return nil // no meminfo, no pre-flight (as a local run)
	}
	lim := l.Config.ToolLimits(tool)
	return resource.Preflight(tool, lim.MinFreeMemoryMB, resource.EstimateFor(tool, nil, lim.InitialEstimates), mi)
}

// Start starts req as a detached local run and returns its local session
// id and the store that holds it.
func (l *Local) Start(ctx context.Context, req remoterun.Request) (string, *session.Store, error) {
	args := []string{"run", "--detach", "--json", "--tool", req.Tool, "--cd", req.Cwd}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	if req.Effort != "" {
		args = append(args, "--effort", req.Effort)
	}
	if req.TimeoutMS > 0 {
		args = append(args, "--timeout", (time.Duration(req.TimeoutMS) * time.Millisecond).String())
	}
	for _, nv := range req.RunFlags {
		if err := runner.CheckRemoteFlag(nv); err != nil {
			return "", nil, err
		}
		args = append(args, "--"+nv)
	}
	scope, err := l.mcpScope(req)
	if err != nil {
		return "", nil, fmt.Errorf("the MCP scope of %s: %w", req.ProjectRoot, err)
	}
	if scope != "" {
		args = append(args, "--mcp-scope", scope)
	}
	args = append(args, "-")
	root, err := project.FindRoot(req.Cwd)
	if err != nil {
		return "", nil, fmt.Errorf("working directory %s: %w", req.Cwd, err)
	}
	store, err := session.Open(filepath.Join(statedir.Dir(l.Getenv), "projects", project.Slug(root), "sessions"))
	if err != nil {
		return "", nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := proc.Capture(cctx, proc.Spec{
		Path: l.CSA, Args: args, Env: l.env(req), Dir: req.Cwd, Stdin: strings.NewReader(req.Prompt),
	}, time.Second)
	if err != nil {
		return "", nil, fmt.Errorf("csa run: %w", err)
	}
	if out.ExitCode != 0 {
		_, msg := errline.Parse(out.Stderr)
		return "", nil, fmt.Errorf("csa run exited %d: %s", out.ExitCode, msg)
	}
	var started struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(out.Stdout, &started); err != nil || started.SessionID == "" {
		return "", nil, fmt.Errorf("csa run printed no session id: %q", out.Stdout)
	}
	return started.SessionID, store, nil
}

// env is the worker's environment with the remote run's genealogy: its
// parent's depth, so that the depth limit holds across machines. The
// parent's id names a session of the caller's machine, none here: the
// local session records parent_unknown, the caller's record the parent.
func (l *Local) env(req remoterun.Request) []string {
	env := make([]string, 0, len(l.Env)+2)
	for _, kv := range l.Env {
		name, _, _ := strings.Cut(kv, "=")
		if !isGenealogy(name) {
			env = append(env, kv)
		}
	}
	if req.Depth > 0 {
		env = append(env, csaenv.Depth+"="+strconv.Itoa(req.Depth-1))
		if req.ParentTool != "" {
			env = append(env, csaenv.Tool+"="+req.ParentTool)
		}
	}
	return env
}

func isGenealogy(name string) bool {
	for _, v := range csaenv.Run {
		if v == name {
			return true
		}
	}
	return false
}
