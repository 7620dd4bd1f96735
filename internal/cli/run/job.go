package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/toolcache"
	"github.com/csa-dev/csa/internal/workspace"
)

// job is a run as resolved from its options: the caller, the prompt, the
// working directory, the project with its configuration and store.
type job struct {
	o      *Options
	f      *cmdutil.Factory
	cfg    *config.Config
	store  *session.Store
	parent *runner.Parent
	prompt string
	cwd    string
	root   string
	// keeper is the keeper found early for the first run supervised here.
	keeper *keeper.Keeper
	// hub is csa's MCP hub for the job's runs, once made sure of.
	hub *hubGrant
	// hooks are the runs' hooks and prompt guards (nil for none);
	// failedOver the on_failover hooks' outcomes, for the next attempt.
	hooks      *runhooks.Set
	failedOver []runhooks.Result
	// snap is the caller's tree as the first worktree attempt took it
	// (or --worktree-base's commit): every attempt of a tier starts from
	// it, whatever changed since.
	snap *gittree.Snapshot
	// branchChecked: --branch was found free for the first attempt.
	branchChecked bool
}

// choice is the tool and model a run uses: from the flags, a resumed
// session, or a tier's model spec.
type choice struct {
	tool, model, effort string
	cwd                 string // "" for the job's
}

func (o *Options) newJob() (*job, error) {
	prompt, err := o.readPrompt()
	if err != nil {
		return nil, err
	}
	parent, err := o.F.Parent()
	if err != nil {
		return nil, err
	}
	cwd, err := workDir(o.Cd)
	if err != nil {
		return nil, err
	}
	root, err := o.F.ProjectRoot(cwd)
	if err != nil {
		return nil, err
	}
	loaded, err := o.F.Config(root)
	if err != nil {
		return nil, err
	}
	store, err := o.F.Store(root)
	if err != nil {
		return nil, err
	}
	o.F.ForgetGoneParent(parent, store)
	var hooks *runhooks.Set
	if !o.NoHooks || !o.NoGuards {
		h, err := o.F.Hooks(root)
		if err != nil {
			return nil, err
		}
		hooks = runhooks.FromConfig(h.Hooks, o.NoHooks, o.NoGuards)
	}
	return &job{o: o, f: o.F, cfg: &loaded.Config, store: store, parent: parent, prompt: prompt, cwd: cwd, root: root, hooks: hooks}, nil
}

// choice is what the flags ask for, or, with --session, what the resumed
// session ran (flags that disagree are refused); resume is that session.
func (j *job) choice() (c choice, resume string, err error) {
	o := j.o
	c = choice{tool: o.Tool, model: o.Model, effort: o.Effort}
	if o.Session == "" {
		return c, "", nil
	}
	id, err := j.store.Resolve(o.Session)
	if err != nil {
		return c, "", err
	}
	if err := j.f.GuardLineage(j.store, "resume", []string{id}); err != nil {
		return c, "", err
	}
	st, err := j.store.Load(id)
	if err != nil {
		return c, "", err
	}
	if o.Tool != "" && o.Tool != st.Tool {
		return c, "", cmdutil.Usagef("session %s runs %s; it cannot be continued with --tool %s", id, st.Tool, o.Tool)
	}
	c.tool = st.Tool
	if o.Cd == "" && st.Cwd != "" {
		if c.cwd, err = workDir(st.Cwd); err != nil {
			return c, "", err
		}
	}
	if c.model == "" {
		c.model = st.Model
	}
	return c, id, nil
}

func (o *Options) readPrompt() (string, error) {
	var b []byte
	var err error
	switch {
	case o.PromptFile != "" && len(o.Args) > 0:
		return "", cmdutil.Usagef("give the prompt either as an argument or with --prompt-file, not both")
	case o.PromptFile != "":
		if b, err = os.ReadFile(o.PromptFile); err != nil {
			return "", cmdutil.Usagef("cannot read prompt file: %v", err)
		}
	case len(o.Args) == 1 && o.Args[0] == "-":
		if b, err = io.ReadAll(o.F.IO.In); err != nil {
			return "", cmdutil.Usagef("cannot read prompt from standard input: %v", err)
		}
	case len(o.Args) > 0:
		b = []byte(strings.Join(o.Args, " "))
	case o.Interactive:
		return "", nil // the session waits for `csa send`
	default:
		return "", cmdutil.Usagef("no prompt: give it as an argument, \"-\" for standard input, or --prompt-file")
	}
	if strings.TrimSpace(string(b)) == "" && !o.Interactive {
		return "", cmdutil.Usagef("the prompt is empty")
	}
	return string(b), nil
}

func workDir(dir string) (string, error) {
	given := dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", cmdutil.Usagef("--cd %s: %v", given, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", cmdutil.Usagef("--cd %s: not a directory", given)
	}
	return abs, nil
}

// request resolves the tool, its program, the run's limits and genealogy.
func (j *job) request(ctx context.Context, c choice) (*runner.Request, error) {
	o, cfg := j.o, j.cfg
	name := c.tool
	if name == "" {
		name = cfg.Defaults.Tool
	}
	if name == "" {
		return nil, cmdutil.Usagef("no tool: pass --tool (%s, auto) or set defaults.tool in the config", agents.Names())
	}
	if name == "auto" {
		t, err := pickAuto(cfg, j.f.Getenv)
		if err != nil {
			return nil, err
		}
		name = string(t)
	}
	tool, err := agents.Parse(name)
	if err != nil {
		return nil, err
	}
	spec, _ := agents.Lookup(name)
	tc := cfg.Tool(name)
	if !tc.Enabled {
		return nil, cmdutil.Refused("tool_disabled", fmt.Errorf("tool %s is disabled in the configuration (tools.%s.enabled = false)", name, name))
	}
	if err := j.parent.CheckDepth(cfg.MaxRecursionDepth); err != nil {
		return nil, err
	}
	loc, err := toolcache.Locate(tc.Path, spec.Program)
	if err != nil {
		return nil, cmdutil.Refused("tool_not_installed", fmt.Errorf(
			"%s is not installed: %v; install it with `%s`, or set [tools.%s] path in the config",
			name, err, cmdutil.InstallHint(tool), name))
	}
	acpProgram, err := o.acpProgram(name, tc)
	if err != nil {
		return nil, err
	}
	timeout, idle := cfg.Defaults.Timeout.Std(), cfg.Defaults.IdleTimeout.Std()
	if o.timeoutSet {
		timeout = o.Timeout
	}
	if o.idleSet {
		idle = o.IdleTimeout
	}
	model, effort, yolo := c.model, c.effort, tc.Yolo
	if model == "" {
		model = tc.Model
	}
	if effort == "" {
		effort = tc.Effort
	}
	if o.yoloSet {
		yolo = o.Yolo
	}
	cwd := j.cwd
	if c.cwd != "" {
		cwd = c.cwd
	}
	env := make([]string, 0, len(tc.Env))
	for k, v := range tc.Env {
		env = append(env, k+"="+v)
	}
	worktree, err := j.worktree(ctx, name)
	if err != nil {
		return nil, err
	}
	if worktree && o.WorktreeBase != "" && j.snap == nil {
		if j.snap, err = j.base(ctx, cwd); err != nil {
			return nil, err
		}
	}
	var branch workspace.Naming
	var submodules bool
	if worktree {
		if branch, submodules, err = j.worktreeOptions(ctx, name, tc, cwd); err != nil {
			return nil, err
		}
	}
	return &runner.Request{
		Worktree: worktree, KeepWorktree: o.KeepWorktree, Snapshot: &j.snap, Branch: branch, WorktreeSubmodules: submodules,
		SessionID: o.SessionID, Tool: tool, Program: loc.Path, Model: model, Effort: effort, Yolo: yolo, Prompt: j.prompt, Cwd: cwd, ProjectRoot: j.root,
		Parent: j.parent, Timeout: timeout, IdleTimeout: idle, Grace: cfg.Defaults.KillGrace.Std(),
		MaxLogBytes: cfg.Output.MaxLogBytes, Detached: o.Detach, ToolEnv: env, ACPProgram: acpProgram, ACPArgs: acpArgs(name, acpProgram),
		Getenv: j.f.Getenv, Hooks: j.hooks, Environ: j.f.Environ(),
		MaxCostUSD: o.MaxCost, Prices: cfg.PriceOverrides(),
	}, nil
}

// prepare creates the session of req, or reopens resume for its next turn.
func (j *job) prepare(ctx context.Context, req *runner.Request, resume string) (*runner.Run, error) {
	var r *runner.Run
	var err error
	if resume != "" {
		r, err = runner.PrepareResume(ctx, j.store, resume, *req)
		var busy *runner.BusyError
		if errors.As(err, &busy) {
			err = cmdutil.Refused("running", fmt.Errorf("%v: wait for it to end before continuing it", err))
		}
	} else {
		r, err = runner.Prepare(ctx, j.store, *req, j.f.Now())
		if errors.Is(err, gittree.ErrNoCommit) {
			err = cmdutil.Usagef("--worktree: %v", err) // exit 2, as outside a repository
		}
	}
	if err != nil {
		req.Slot.Release()
		return nil, err
	}
	return r, nil
}

// detach hands a prepared run to a background supervisor and prints its id.
func (j *job) detach(r *runner.Run) error {
	exe, err := j.f.Executable()
	if err != nil {
		return err
	}
	id := r.Spec.SessionID
	if _, err := runner.Detach(j.store, r, exe, []string{"__supervise", "--sessions", j.store.Root(), id}, j.f.Environ()); err != nil {
		return err
	}
	if j.f.JSON {
		return j.f.IO.PrintJSON(map[string]string{"session_id": id})
	}
	fmt.Fprintln(j.f.IO.Out, id)
	return nil
}
