package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// runSubmit is `csa run --remote`: queue a run and print its session id.
func runSubmit(ctx context.Context, e *env, args []string) error {
	fs := flags("submit")
	tool := fs.String("tool", "", "tool to run")
	model := fs.String("model", "", "model")
	effort := fs.String("effort", "", "effort")
	timeout := new(time.Duration)
	fs.Var(cmdutil.Duration(timeout, 0), "timeout", "total time limit of the run (0: none)")
	labels := fs.String("labels", "", "labels the worker must have, k=v,...")
	cd := fs.String("cd", "", "working directory of the agent (default: this one): the git work tree holding it travels")
	remoteCwd := fs.Bool("remote-cwd", false, "send no working tree: run in --cd as it is on the worker")
	promptFile := fs.String("prompt-file", "", "read the prompt from a file")
	var runFlags []string
	fs.Func("run-flag", "a flag of csa run for the worker's local run, name=value ("+strings.Join(runner.RemoteFlags, ", ")+"); repeated", func(nv string) error {
		if err := runner.CheckRemoteFlag(nv); err != nil {
			return err
		}
		runFlags = append(runFlags, nv)
		return nil
	})
	retries := fs.Int("retries", 0, "queue the run again, at most N times, when its worker is lost (agent runs are not idempotent: 0 by default)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *retries < 0 || *retries > cluster.MaxRetries {
		return cmdutil.Usagef("--retries takes 0 to %d, not %d", cluster.MaxRetries, *retries)
	}
	cfg, root, err := loadConfig()
	if err != nil {
		return err
	}
	if *tool == "" {
		*tool = cfg.Defaults.Tool
	}
	if *tool == "" || *tool == "auto" {
		return cmdutil.Usagef("a remote run needs --tool NAME (or defaults.tool); auto is not supported remotely yet")
	}
	prompt, err := readPrompt(fs.Args(), *promptFile)
	if err != nil {
		return err
	}
	ls, err := parseLabels(*labels)
	if err != nil {
		return err
	}
	dir := *cd
	if dir == "" {
		dir = "."
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if *model == "" {
		*model = cfg.Tool(*tool).Model
	}
	req := cluster.Request{Tool: *tool, Model: *model, Effort: *effort, Prompt: prompt, Cwd: dir, Labels: ls,
		TimeoutMS: timeout.Milliseconds(), ProjectRoot: root, Retries: *retries, RunFlags: runFlags}
	parent, err := runner.ParentFromEnv(e.getenv)
	if err != nil {
		return &cmdutil.Error{Code: "bad_environment", Exit: cmdutil.ExitUsage, Err: err}
	}
	if parent != nil {
		if parent.Depth+1 > cfg.MaxRecursionDepth {
			return cmdutil.Refused("depth_limit", fmt.Errorf(
				"recursion depth limit reached: this run would be at depth %d, max_recursion_depth is %d (%s)",
				parent.Depth+1, cfg.MaxRecursionDepth, parent.Describe()))
		}
		req.Depth, req.ParentID, req.ParentTool = parent.Depth+1, parent.SessionID, parent.Tool
		if parent.ProjectRoot != "" {
			req.ProjectRoot = parent.ProjectRoot
		}
	}
	if !cfg.Cluster.Enabled() {
		return cmdutil.Usagef("%v", cluster.ErrNoCluster)
	}
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	if !*remoteCwd {
		// Refused before connecting: outside a repository nothing can
		// travel.
		if _, err := g.Top(ctx, dir); errors.Is(err, gittree.ErrNotRepo) {
			return cmdutil.Usagef("%s is not in a git repository: a remote run takes its working tree as git "+
				"(HEAD and the uncommitted changes); --remote-cwd runs in --cd DIR as it is on the worker instead", dir)
		}
	}
	c, err := open(ctx, cfg, "csa run --remote")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	req.ID = session.NewID(e.now())
	if !*remoteCwd {
		if req.Tree, err = c.ShipTree(ctx, g, req.ID, dir, cfg.Cluster.Remote); err != nil {
			if errors.Is(err, gittree.ErrNotRepo) || errors.Is(err, gittree.ErrNoCommit) {
				return cmdutil.Usagef("%v", err)
			}
			return err
		}
	}
	r, err := c.Submit(ctx, req, e.now())
	if err != nil {
		if req.Tree != nil {
			c.DropTree(context.WithoutCancel(ctx), req.Tree)
		}
		return err
	}
	if e.json {
		return json.NewEncoder(e.out).Encode(map[string]string{"session_id": r.ID})
	}
	fmt.Fprintln(e.out, r.ID)
	return nil
}

// readPrompt is the prompt as csa run takes it: the argument, "-" for
// standard input, or a file.
func readPrompt(args []string, file string) (string, error) {
	switch {
	case file != "" && len(args) > 0:
		return "", cmdutil.Usagef("give the prompt as an argument or with --prompt-file, not both")
	case file != "":
		b, err := os.ReadFile(file)
		return string(b), err
	case len(args) == 1 && args[0] == "-":
		b, err := io.ReadAll(os.Stdin)
		return string(b), err
	case len(args) == 1:
		return args[0], nil
	}
	return "", cmdutil.Usagef("give one prompt: PROMPT, - (standard input) or --prompt-file FILE")
}
