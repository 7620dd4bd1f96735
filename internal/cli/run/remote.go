package run

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/proc"
)

// notRemote are the flags a remote run cannot honour yet.
var notRemote = []string{"interactive", "session", "session-id", "tier", "no-failover", "transport", "wait", "memory-max-mb",
	"memory-swap-max-mb", "pids-max", "enforcement", "sandbox", "no-preflight", "idle-timeout"}

// goesRemote: --remote, or [cluster] default = "remote" unless
// --remote=false or a flag only a local run has.
func (j *job) goesRemote(cmdFlags map[string]bool) bool {
	if j.o.remoteSet {
		return j.o.Remote
	}
	if j.cfg.Cluster.Default != config.ClusterRemote {
		return false
	}
	for _, n := range notRemote {
		if cmdFlags[n] {
			return false
		}
	}
	return true
}

// remote queues the run on the cluster through csa-cluster, which prints
// the session id; the prompt goes on its standard input.
func (j *job) remote(ctx context.Context) error {
	for _, n := range notRemote {
		if j.o.changed[n] {
			return cmdutil.Usagef("--%s cannot be used with --remote (not supported for remote runs yet)", n)
		}
	}
	exe, err := proc.Sibling(clustercmd.Program)
	if err != nil {
		return err
	}
	tool := j.o.Tool
	if tool == "" {
		tool = j.cfg.Defaults.Tool
	}
	args := []string{"submit", "--tool", tool, "--cd", j.cwd}
	for flag, v := range map[string]string{"--model": j.o.Model, "--effort": j.o.Effort, "--labels": strings.Join(j.o.Labels, ",")} {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	if timeout := j.o.Timeout; timeout > 0 || j.cfg.Defaults.Timeout > 0 {
		if timeout == 0 {
			timeout = j.cfg.Defaults.Timeout.Std()
		}
		args = append(args, "--timeout", timeout.String())
	}
	if j.o.RemoteCwd {
		args = append(args, "--remote-cwd")
	}
	if j.o.changed["retries"] {
		args = append(args, "--retries", strconv.Itoa(j.o.Retries))
	}
	if j.f.JSON {
		args = append(args, "--json")
	}
	args = append(args, "-")
	ps, err := proc.Run(ctx, proc.Spec{Path: exe, Args: args, Env: j.f.Environ(), Stdin: strings.NewReader(j.prompt),
		Stdout: j.f.IO.Out, Stderr: j.f.IO.ErrOut}, 5*time.Second)
	if err != nil {
		return err
	}
	if code := ps.ExitCode(); code != 0 {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}
