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
	"github.com/csa-dev/csa/internal/runner"
)

// notRemote are the flags a remote run cannot honour yet.
var notRemote = []string{"interactive", "session", "session-id", "tier", "no-failover", "transport", "wait"}

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
	carried, err := j.remoteFlags()
	if err != nil {
		return err
	}
	for _, nv := range carried {
		args = append(args, "--run-flag", nv)
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

// remoteFlags are the limits and idle timeout given to this run, as the
// worker's local run takes them (runner.RemoteFlags), checked here as a
// local run would check them.
func (j *job) remoteFlags() ([]string, error) {
	rf := &j.o.res
	if _, err := j.ask(j.o.Tool); err != nil {
		return nil, err
	}
	values := map[string]string{
		"memory-max-mb": strconv.FormatInt(rf.memoryMaxMB, 10), "memory-swap-max-mb": strconv.FormatInt(rf.swapMaxMB, 10),
		"pids-max": strconv.FormatInt(rf.pidsMax, 10), "enforcement": rf.enforcement, "sandbox": rf.sandbox,
		"no-preflight": strconv.FormatBool(rf.noPreflight), "idle-timeout": j.o.IdleTimeout.String(),
	}
	var out []string
	for _, name := range runner.RemoteFlags {
		if j.o.changed[name] {
			out = append(out, name+"="+values[name])
		}
	}
	return out, nil
}
