// Package run implements `csa run`: start an agent tool on a prompt in a new
// session, supervised here or, with --detach, by a background csa.
package run

import (
	"context"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the parsed flags of `csa run`. They are read-only once
// parsed: what a run decides (its tool in a tier, a resumed session's
// model) lives in a choice, not here.
type Options struct {
	F           *cmdutil.Factory
	Tool        string
	Model       string
	Cd          string
	PromptFile  string
	Timeout     time.Duration
	IdleTimeout time.Duration
	// MaxCost is --max-cost in USD (0: no limit).
	MaxCost float64
	Detach  bool
	Session string // resume this session
	// SessionID names the new session (a ULID; see checkSessionID).
	SessionID string
	Effort    string
	Yolo      bool
	Args      []string
	// Verbose shows the program's own standard error live.
	Verbose bool

	Tier       string
	NoFailover bool
	Transport  string // cli, acp or auto; "" for the tool's setting
	// Interactive runs the tool's own interface in a tmux pane.
	Interactive bool
	// Isolate is what to confine: fs, net, fs,net or none ("" follows
	// the configuration).
	Isolate string
	// NoMCP gives the run no MCP hub, whatever the configuration says.
	NoMCP bool
	// MCPScope is the project whose instances of project-scoped MCP
	// servers the run shares ("": its own project root). A worker gives
	// a remote run's scratch tree its caller's project (hidden flag).
	MCPScope string
	// NoHooks and NoGuards turn off the hooks and the prompt guards of
	// the hooks files for this run.
	NoHooks, NoGuards bool

	// Remote queues the run on the cluster ([cluster]) for a csa worker;
	// Labels are what that worker must have (k=v).
	Remote bool
	Labels []string
	// RemoteCwd sends no working tree: the remote run's agent works in
	// the directory of the same path on the worker.
	RemoteCwd bool
	// Retries: how often a remote run is queued again when its worker
	// is lost.
	Retries int
	// Worktree runs the agent in a git worktree of its own;
	// KeepWorktree keeps its folder once the change is recorded.
	Worktree, KeepWorktree bool
	// WorktreeBase, with Worktree, is the commit or branch the worktree
	// starts from instead of the caller's HEAD and uncommitted changes.
	WorktreeBase string
	// Branch, with Worktree, is the worktree's branch, over the
	// configured template; WorktreeSubmodules checks out the submodules.
	Branch             string
	WorktreeSubmodules bool

	timeoutSet, idleSet, yoloSet bool
	remoteSet                    bool
	changed                      map[string]bool
	res                          resourceFlags
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "run --tool NAME [flags] [PROMPT | -]",
		Short: "Run an agent tool on a prompt in a new session",
		Long: `Run an agent tool on a prompt in a new, recorded session.

The prompt is the argument, "-" to read it from standard input, or --prompt-file.
The answer is shown as it comes; the program's own standard error is recorded
and shown with -v, or its end when the run fails.
Exit status: 0 success, 1 the agent failed, 2 usage or configuration error,
3 refused before start, 124 timeout, 130 interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			opts.timeoutSet = cmd.Flags().Changed("timeout")
			opts.idleSet = cmd.Flags().Changed("idle-timeout")
			opts.yoloSet = cmd.Flags().Changed("yolo")
			opts.remoteSet = cmd.Flags().Changed("remote")
			opts.changed = map[string]bool{}
			cmd.Flags().Visit(func(fl *pflag.Flag) { opts.changed[fl.Name] = true })
			opts.res.set = map[string]bool{}
			for _, n := range []string{"memory-max-mb", "memory-swap-max-mb", "pids-max"} {
				opts.res.set[n] = cmd.Flags().Changed(n)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Tool, "tool", "t", "", "tool to run: "+agents.Names()+", or auto (another model family than the caller's)")
	fl.StringVarP(&opts.Model, "model", "m", "", "model to ask the tool for")
	fl.StringVar(&opts.Cd, "cd", "", "working directory of the agent")
	fl.StringVarP(&opts.PromptFile, "prompt-file", "f", "", "read the prompt from a file")
	fl.Var(cmdutil.Duration(&opts.Timeout, 0), "timeout", "stop the run after this long (0: no limit)")
	fl.Var(cmdutil.Duration(&opts.IdleTimeout, 0), "idle-timeout", "stop the run after this long without output (0: no limit)")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0, "stop the run, budget_exceeded, once it and the runs it started have cost more than this many USD (0: no limit; see docs/cost.md)")
	fl.BoolVarP(&opts.Detach, "detach", "d", false, "return at once with the session id; a background csa supervises the run")
	fl.StringVarP(&opts.Session, "session", "s", "", "continue this session (same tool, same provider session)")
	fl.StringVar(&opts.SessionID, "session-id", "", "the new session's id, a ULID the caller chose (refused when it names a session that exists)")
	fl.StringVar(&opts.Effort, "effort", "", "thinking or reasoning effort (e.g. low, medium, high)")
	fl.BoolVar(&opts.Yolo, "yolo", true, "let the agent act without asking for approval; --yolo=false to ask (default: tools.NAME.yolo, true unless configured)")
	// The default depends on the configuration: keep pflag from printing
	// a second one.
	fl.Lookup("yolo").DefValue = "false"
	fl.BoolVarP(&opts.Verbose, "verbose", "v", false, "show the program's own standard error as it comes")
	fl.Int64Var(&opts.res.memoryMaxMB, "memory-max-mb", 0, "memory limit of the run in MB (0: none)")
	fl.Int64Var(&opts.res.swapMaxMB, "memory-swap-max-mb", 0, "swap limit of the run in MB (cgroup layers only)")
	fl.Int64Var(&opts.res.pidsMax, "pids-max", 0, "process limit of the run (0: none)")
	fl.StringVar(&opts.res.enforcement, "enforcement", "", "Required, BestEffort or Off (default: resources.enforcement_mode)")
	fl.StringVar(&opts.res.sandbox, "sandbox", "", "preferred layer: auto, systemd, cgroup2, cgroup1, setrlimit, none")
	fl.BoolVar(&opts.res.noPreflight, "no-preflight", false, "start even if free memory looks short of the tool's estimated need")
	fl.BoolVar(&opts.res.wait, "wait", false, "when the tool's max_concurrent slots are all taken, queue for one")
	fl.StringVar(&opts.Tier, "tier", "", "choose the tool and model from this tier of [tiers] (rotation, cooldowns, failover)")
	fl.BoolVar(&opts.NoFailover, "no-failover", false, "with --tier: no retries and no failover on rate limits")
	fl.StringVar(&opts.Transport, "transport", "", "cli, acp (the tool's Agent Client Protocol agent) or auto (default: tools.NAME.transport)")
	fl.BoolVar(&opts.NoMCP, "no-mcp", false, "give the agent no MCP servers of csa's hub ([mcp.servers] of the config; default off with mcp.enabled = false)")
	fl.BoolVar(&opts.NoHooks, "no-hooks", false, "run none of the hooks of hooks.toml (pre_session, pre_run, post_run, session_complete, on_failover, on_needs_input, on_overlap)")
	fl.BoolVar(&opts.NoGuards, "no-guards", false, "run none of the prompt guards of hooks.toml (add nothing to the prompt)")
	fl.BoolVar(&opts.Remote, "remote", false, "queue the run on the cluster ([cluster] url) for a csa worker; prints the session id (default: cluster.default)")
	fl.StringSliceVar(&opts.Labels, "labels", nil, "with --remote: labels the worker must have, k=v,...")
	fl.IntVar(&opts.Retries, "retries", 0, "with --remote: queue the run again, at most N times, when its worker is lost (default 0: agent runs are not idempotent)")
	fl.BoolVar(&opts.RemoteCwd, "remote-cwd", false, "with --remote: send no working tree (by default the git work tree travels: HEAD and the uncommitted changes); the agent runs in --cd as it is on the worker")
	fl.StringVar(&opts.MCPScope, "mcp-scope", "", "the project (an absolute path) whose instances of project-scoped MCP servers the run shares (default: its own)")
	fl.MarkHidden("mcp-scope")
	fl.BoolVarP(&opts.Worktree, "worktree", "w", false, "run the agent in a git worktree of its own, on a branch of its own (csa/ID unless --branch or defaults.worktree_branch say otherwise) from HEAD plus your uncommitted changes; its change is committed there when it ends (default: defaults.worktree; a run inside another's worktree works in it)")
	fl.StringVar(&opts.WorktreeBase, "worktree-base", "", "with --worktree: start the worktree's branch from this commit or branch instead of HEAD plus your uncommitted changes (nothing of your tree is taken)")
	fl.BoolVar(&opts.KeepWorktree, "keep-worktree", false, "with --worktree: keep the worktree's folder once the change is committed (the branch always stays)")
	fl.StringVar(&opts.Branch, "branch", "", "with --worktree: the worktree's branch, a new branch of this name (default: defaults.worktree_branch, csa/{id})")
	fl.BoolVar(&opts.WorktreeSubmodules, "worktree-submodules", false, "with --worktree: check out the repository's submodules in the worktree, recursively (default: defaults.worktree_submodules; none are otherwise)")
	fl.StringVar(&opts.Isolate, "isolate", "", "confine the agent: fs (read everywhere but your secrets, write only the working directory, the temp dir and its own state; Landlock), net (connect only through csa's egress proxy, to the model endpoints, the tool's API hosts and [sandbox] allow_hosts; Landlock TCP rules), fs,net, or none (default: tools.NAME.isolate, else [sandbox] fs and net)")
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "run the tool's interactive interface in a tmux pane and return its session id at once (see csa send, status, attach)")
	return cmd
}

// notInteractive are the flags `csa run -i` refuses, and why.
var notInteractive = map[string]string{
	"detach":       "an interactive session always runs in the background",
	"session":      "an interactive session cannot continue a headless one",
	"tier":         "an interactive session runs the tool it is given",
	"no-failover":  "it goes with --tier",
	"transport":    "an interactive session runs in tmux",
	"timeout":      "an interactive session runs until it is killed",
	"idle-timeout": "an interactive session waits for input as long as it takes",
	"max-cost":     "an interactive session's program reports no usage to csa",
	"wait":         "max_concurrent slots do not bound interactive sessions",
	"verbose":      "the pane shows everything",
}

// NewSpawnCmd builds `csa spawn`, which is `csa run -i`.
func NewSpawnCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := NewCmd(f, nil)
	cmd.Use = "spawn --tool NAME [flags] [PROMPT | -]"
	cmd.Short = "Start an interactive session in tmux (csa run -i)"
	cmd.Long = `Start the tool's interactive interface in a tmux pane on a private per-project
server and print the session id at once. Then: csa send, csa status, csa wait --until,
csa logs, csa attach, csa kill. max_concurrent slots do not bound interactive
sessions; the memory pre-flight and the resource limits apply.`
	cmd.Flags().Lookup("interactive").DefValue = "true"
	cmd.Flags().Set("interactive", "true")
	cmd.Flags().MarkHidden("interactive")
	for name := range notInteractive {
		cmd.Flags().MarkHidden(name)
	}
	return cmd
}

// Run validates everything it can before creating the session, so a
// refused run leaves no record behind, then supervises it (or hands it to
// a detached supervisor, or to a tmux pane).
func Run(ctx context.Context, o *Options) error {
	if o.Interactive {
		if err := o.checkInteractive(); err != nil {
			return err
		}
	}
	if err := o.checkSessionID(); err != nil {
		return err
	}
	if !(o.MaxCost >= 0) { // NaN too
		return cmdutil.Usagef("--max-cost %v is not an amount of USD (0 or more)", o.MaxCost)
	}
	if o.MCPScope != "" && !filepath.IsAbs(o.MCPScope) {
		return cmdutil.Usagef("--mcp-scope %q is not an absolute path", o.MCPScope)
	}
	// A run supervised here finds its keeper now, while csa reads its
	// configuration, rather than in series before the program.
	var kept *keeper.Keeper
	if !o.Detach && !o.Interactive {
		if exe, err := o.F.Executable(); err == nil {
			kept = runner.StartKeeper(exe, o.F.Getenv)
			defer kept.Release()
		}
	}
	j, err := o.newJob()
	if err != nil {
		return err
	}
	j.keeper = kept
	if o.SessionID != "" {
		// Before any slot, hook or hub: a caller that finds its id taken
		// (a runner resuming a launch it recorded) waits for that session.
		if err := j.store.Taken(o.SessionID); err != nil {
			return err
		}
	}
	if j.goesRemote(o.changed) {
		if o.Worktree || o.KeepWorktree || o.WorktreeBase != "" || o.Branch != "" || o.WorktreeSubmodules {
			return cmdutil.Usagef("--worktree is for local runs: a remote run works in a scratch tree of its own and its change comes back with csa apply")
		}
		return j.remote(ctx)
	}
	if o.RemoteCwd {
		return cmdutil.Usagef("--remote-cwd is for remote runs (--remote)")
	}
	if o.changed["retries"] {
		return cmdutil.Usagef("--retries is for remote runs (--remote): a local run whose supervisor is lost is not run again")
	}
	if o.Tier != "" {
		return j.runTier(ctx)
	}
	c, resume, err := j.choice()
	if err != nil {
		return err
	}
	req, err := j.request(ctx, c)
	if err != nil {
		return err
	}
	if err := j.admit(ctx, req); err != nil {
		return err
	}
	j.giveMCP(ctx, req)
	if o.Interactive {
		return j.spawn(ctx, req)
	}
	r, err := j.prepare(ctx, req, resume)
	if err != nil {
		return err
	}
	if o.Detach {
		return j.detach(r)
	}
	st, err := j.supervise(ctx, r)
	if err != nil {
		return err
	}
	return j.finish(st)
}

// checkSessionID checks --session-id: a whole ULID (upper-cased here)
// naming the one new session the run makes. A foreground tier run may make
// several (each failover a session), so it takes one only with
// --no-failover.
func (o *Options) checkSessionID() error {
	if o.SessionID == "" {
		return nil
	}
	id, err := session.ParseID(o.SessionID)
	if err != nil {
		return err
	}
	o.SessionID = id
	switch {
	case o.Session != "":
		return cmdutil.Usagef("--session-id names a new session: it cannot be used with --session, which continues one")
	case o.Tier != "" && !o.Detach && !o.NoFailover:
		return cmdutil.Usagef("--session-id with --tier needs --detach or --no-failover: a failover makes a session per model")
	}
	return nil
}

// checkInteractive refuses the flags an interactive session cannot honour.
func (o *Options) checkInteractive() error {
	for flag, set := range map[string]bool{
		"detach": o.Detach, "session": o.Session != "", "tier": o.Tier != "", "no-failover": o.NoFailover,
		"transport": o.Transport != "", "timeout": o.timeoutSet, "idle-timeout": o.idleSet, "wait": o.res.wait,
		"verbose": o.Verbose, "max-cost": o.MaxCost != 0,
	} {
		if set {
			return cmdutil.Usagef("--%s cannot be used with -i: %s", flag, notInteractive[flag])
		}
	}
	return nil
}
