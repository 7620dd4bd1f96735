package run

import (
	"context"
	"strconv"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/sandbox"
)

// notRemote are the flags a remote run cannot honour yet.
var notRemote = []string{"interactive", "session", "session-id", "tier", "no-failover", "transport", "wait", "max-cost"}

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

// remote queues the run on the cluster: csa builds the request
// (remoterun's policy) and csa-cluster, which prints the session id,
// ships the working tree and queues it.
func (j *job) remote(ctx context.Context) error {
	for _, n := range notRemote {
		if j.o.changed[n] {
			return cmdutil.Usagef("--%s cannot be used with --remote (not supported for remote runs yet)", n)
		}
	}
	runFlags, err := j.remoteFlags()
	if err != nil {
		return err
	}
	o := remoterun.Options{Tool: j.o.Tool, Model: j.o.Model, Effort: j.o.Effort, Prompt: j.prompt, Cwd: j.cwd,
		ProjectRoot: j.root, Labels: j.o.Labels, Retries: j.o.Retries, RunFlags: runFlags}
	if j.o.timeoutSet {
		o.Timeout = &j.o.Timeout
	}
	req, err := remoterun.New(j.cfg, o, j.parent)
	if err != nil {
		return err
	}
	return clustercmd.Submit(ctx, req, j.o.RemoteCwd, j.f.JSON, j.f.Environ(), j.f.IO.Out, j.f.IO.ErrOut)
}

// remoteFlags are the limits, isolation and idle timeout given to this run, as the
// worker's local run takes them (runner.RemoteFlags), checked here as a
// local run would check them.
func (j *job) remoteFlags() ([]string, error) {
	rf := &j.o.res
	if _, err := j.ask(j.o.Tool); err != nil {
		return nil, err
	}
	if j.o.Isolate != "" {
		if _, err := sandbox.ParseIsolate(j.o.Isolate); err != nil {
			return nil, cmdutil.Usagef("--isolate: %v", err)
		}
	}
	values := map[string]string{
		"memory-max-mb": strconv.FormatInt(rf.memoryMaxMB, 10), "memory-swap-max-mb": strconv.FormatInt(rf.swapMaxMB, 10),
		"pids-max": strconv.FormatInt(rf.pidsMax, 10), "enforcement": rf.enforcement, "sandbox": rf.sandbox,
		"no-preflight": strconv.FormatBool(rf.noPreflight), "idle-timeout": j.o.IdleTimeout.String(),
		"isolate": j.o.Isolate,
	}
	var out []string
	for _, name := range runner.RemoteFlags {
		if j.o.changed[name] {
			out = append(out, name+"="+values[name])
		}
	}
	return out, nil
}
