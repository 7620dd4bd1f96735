// Package run implements `csa run`: start an agent tool on a prompt in a new
// session, supervised here or, with --detach, by a background csa.
package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/toolcache"
)

// Options are the parsed flags of `csa run`.
type Options struct {
	F           *cmdutil.Factory
	Tool        string
	Model       string
	Cd          string
	PromptFile  string
	Timeout     time.Duration
	IdleTimeout time.Duration
	Detach      bool
	Session     string // resume this session
	Effort      string
	Yolo        bool
	Args        []string

	Tier       string
	NoFailover bool
	Transport  string // cli, acp or auto; "" for the tool's setting
	// Interactive runs the tool's own interface in a tmux pane.
	Interactive bool

	timeoutSet, idleSet, yoloSet bool
	res                          resourceFlags
	storeRoot                    string
	signals                      <-chan os.Signal
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "run --tool NAME [flags] [PROMPT | -]",
		Short: "Run an agent tool on a prompt in a new session",
		Long: `Run an agent tool on a prompt in a new, recorded session.

The prompt is the argument, "-" to read it from standard input, or --prompt-file.
Exit status: 0 success, 1 the agent failed, 2 usage or configuration error,
3 refused before start, 124 timeout, 130 interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			opts.timeoutSet = cmd.Flags().Changed("timeout")
			opts.idleSet = cmd.Flags().Changed("idle-timeout")
			opts.yoloSet = cmd.Flags().Changed("yolo")
			opts.res.set = map[string]bool{}
			for _, n := range []string{"memory-max-mb", "memory-swap-max-mb", "pids-max"} {
				opts.res.set[n] = cmd.Flags().Changed(n)
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Tool, "tool", "t", "", "tool to run: "+agents.Names()+", or auto (another model family than the caller's)")
	fl.StringVarP(&opts.Model, "model", "m", "", "model to ask the tool for")
	fl.StringVar(&opts.Cd, "cd", "", "working directory of the agent")
	fl.StringVarP(&opts.PromptFile, "prompt-file", "f", "", "read the prompt from a file")
	fl.DurationVar(&opts.Timeout, "timeout", 0, "stop the run after this long (0: no limit)")
	fl.DurationVar(&opts.IdleTimeout, "idle-timeout", 0, "stop the run after this long without output (0: no limit)")
	fl.BoolVarP(&opts.Detach, "detach", "d", false, "return at once with the session id; a background csa supervises the run")
	fl.StringVarP(&opts.Session, "session", "s", "", "continue this session (same tool, same provider session)")
	fl.StringVar(&opts.Effort, "effort", "", "thinking or reasoning effort (e.g. low, medium, high)")
	fl.BoolVar(&opts.Yolo, "yolo", true, "let the agent act without asking for approval (default from tools.NAME.yolo)")
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
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "run the tool's interactive interface in a tmux pane and return its session id at once (see csa send, status, attach)")
	return cmd
}

// NewSpawnCmd builds `csa spawn`, which is `csa run -i`.
func NewSpawnCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := NewCmd(f, nil)
	cmd.Use = "spawn --tool NAME [flags] [PROMPT | -]"
	cmd.Short = "Start an interactive session in tmux (csa run -i)"
	cmd.Long = `Start the tool's interactive interface in a tmux pane on a private per-project
server and print the session id at once. Then: csa send, csa status, csa wait --until,
csa logs, csa attach, csa kill.`
	cmd.Flags().Lookup("interactive").DefValue = "true"
	cmd.Flags().Set("interactive", "true")
	return cmd
}

// Run validates everything it can before creating the session, so a
// refused run leaves no record behind, then supervises it.
func Run(o *Options) error {
	if o.Interactive {
		if err := o.checkInteractive(); err != nil {
			return err
		}
	}
	prompt, err := o.readPrompt()
	if err != nil {
		return err
	}
	parent, err := o.F.Parent()
	if err != nil {
		return err
	}
	cwd, err := o.workDir()
	if err != nil {
		return err
	}
	root, err := o.F.ProjectRoot(cwd)
	if err != nil {
		return err
	}
	cfg, err := o.F.Config(root)
	if err != nil {
		return err
	}
	if o.Tier != "" {
		return o.runTier(&cfg.Config, parent, prompt, cwd, root)
	}
	resume, err := o.resumeTarget(root)
	if err != nil {
		return err
	}
	if resume != "" {
		if cwd, err = o.workDir(); err != nil {
			return err
		}
	}
	req, err := o.request(&cfg.Config, parent, prompt, cwd, root)
	if err != nil {
		return err
	}
	store, err := o.F.Store(root)
	if err != nil {
		return err
	}
	o.storeRoot = store.Root()
	if err := o.guard(&cfg.Config, string(req.Tool), req); err != nil {
		return err
	}
	if o.Interactive {
		return o.spawn(&cfg.Config, store, req)
	}
	var r *runner.Run
	if resume != "" {
		r, err = runner.PrepareResume(store, resume, *req)
		var busy *runner.BusyError
		if errors.As(err, &busy) {
			return cmdutil.Refused("running", fmt.Errorf("%v: wait for it to end before continuing it", err))
		}
	} else {
		r, err = runner.Prepare(store, *req, o.F.Now())
	}
	if err != nil {
		if req.Slot != nil {
			req.Slot.Release()
		}
		return err
	}
	if o.Detach {
		return o.detach(store, r)
	}
	return o.foreground(store, r)
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

func (o *Options) workDir() (string, error) {
	dir := o.Cd
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", cmdutil.Usagef("--cd %s: %v", o.Cd, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", cmdutil.Usagef("--cd %s: not a directory", o.Cd)
	}
	return abs, nil
}

// request resolves tool, program, limits and genealogy.
func (o *Options) request(cfg *config.Config, parent *runner.Parent, prompt, cwd, root string) (*runner.Request, error) {
	name := o.Tool
	if name == "" {
		name = cfg.Defaults.Tool
	}
	if name == "" {
		return nil, cmdutil.Usagef("no tool: pass --tool (%s, auto) or set defaults.tool in the config", agents.Names())
	}
	if name == "auto" {
		t, err := pickAuto(cfg, o.F.Getenv)
		if err != nil {
			return nil, err
		}
		name = string(t)
	}
	tool, err := agents.Parse(name)
	if err != nil {
		return nil, err
	}
	tc := cfg.Tool(name)
	if !tc.Enabled {
		return nil, cmdutil.Refused("tool_disabled", fmt.Errorf("tool %s is disabled in the configuration (tools.%s.enabled = false)", name, name))
	}
	if parent != nil && parent.Depth+1 > cfg.MaxRecursionDepth {
		return nil, cmdutil.Refused("depth_limit", fmt.Errorf(
			"recursion depth limit reached: this run would be at depth %d, max_recursion_depth is %d (parent session %s)",
			parent.Depth+1, cfg.MaxRecursionDepth, parent.SessionID))
	}
	loc, err := toolcache.Locate(tc.Path, mustSpec(tool).Program)
	if err != nil {
		return nil, cmdutil.Refused("tool_not_installed", fmt.Errorf(
			"%s is not installed: %v; install it with `%s`, or set [tools.%s] path in the config",
			name, err, cmdutil.InstallHint(tool), name))
	}
	program := loc.Path
	acpProgram, err := o.acpProgram(name, tc)
	if err != nil {
		return nil, err
	}
	if o.Timeout < 0 || o.IdleTimeout < 0 {
		return nil, cmdutil.Usagef("timeouts cannot be negative")
	}
	timeout, idle := cfg.Defaults.Timeout.Std(), cfg.Defaults.IdleTimeout.Std()
	if o.timeoutSet {
		timeout = o.Timeout
	}
	if o.idleSet {
		idle = o.IdleTimeout
	}
	model, effort, yolo := o.Model, o.Effort, tc.Yolo
	if model == "" {
		model = tc.Model
	}
	if effort == "" {
		effort = tc.Effort
	}
	if o.yoloSet {
		yolo = o.Yolo
	}
	env := make([]string, 0, len(tc.Env))
	for k, v := range tc.Env {
		env = append(env, k+"="+v)
	}
	return &runner.Request{
		Tool: tool, Program: program, Model: model, Effort: effort, Yolo: yolo, Prompt: prompt, Cwd: cwd, ProjectRoot: root,
		Parent: parent, Timeout: timeout, IdleTimeout: idle, Grace: cfg.Defaults.KillGrace.Std(),
		MaxLogBytes: cfg.Output.MaxLogBytes, Detached: o.Detach, ToolEnv: env, ACPProgram: acpProgram,
	}, nil
}

func (o *Options) detach(store *session.Store, r *runner.Run) error {
	exe, err := o.F.Executable()
	if err != nil {
		return err
	}
	id := r.Spec.SessionID
	if _, err := runner.Detach(store, r, exe, []string{"__supervise", "--sessions", store.Root(), id}, o.F.Environ()); err != nil {
		return err
	}
	if o.F.JSON {
		return o.F.IO.PrintJSON(map[string]string{"session_id": id})
	}
	fmt.Fprintln(o.F.IO.Out, id)
	return nil
}
