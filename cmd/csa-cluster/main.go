// Command csa-cluster is csa's NATS JetStream side: `csa cluster`, `csa
// worker` and `csa run --remote` hand over to it. It is a program of its
// own, built and installed beside csa, because the NATS client and server
// libraries would slow every csa start (see docs/performance.md, issue 16).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/project"
)

// env is what a command reads of the world.
type env struct {
	in          io.Reader
	out, errOut io.Writer
	json        bool
	getenv      func(string) string
	now         func() time.Time
}

func main() {
	e := &env{in: os.Stdin, out: os.Stdout, errOut: os.Stderr, getenv: os.Getenv, now: time.Now}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := execute(ctx, e, os.Args[1:])
	stop()
	os.Exit(code)
}

// execute runs the command args name and returns the exit status, from
// csa's one table of them (cmdutil.Classify).
func execute(ctx context.Context, e *env, args []string) int {
	cmd := newCmd(e)
	cmd.SetArgs(args)
	cmd.SetIn(e.in)
	cmd.SetOut(e.out)
	cmd.SetErr(e.errOut)
	err := cmd.ExecuteContext(ctx)
	return cmdutil.ExitStatus(&cmdutil.IOStreams{Out: e.out, ErrOut: e.errOut}, err, e.json || cmdutil.JSONRequested(args))
}

// newCmd builds csa-cluster's command tree, as csa builds its own
// (internal/cli/root): usage errors exit 2.
func newCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csa-cluster COMMAND",
		Short: "csa's NATS JetStream side, run by csa cluster, csa worker and csa run --remote",
		Long: `csa-cluster is csa's NATS JetStream side: csa cluster, csa worker, csa run --remote
and csa's commands on remote sessions (ps, wait, kill, logs, inspect, status, apply)
hand over to it. It is built and installed beside csa, which links no NATS code.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// No command: the usage on standard error, exit 2.
		RunE: func(c *cobra.Command, _ []string) error {
			c.SetOut(c.ErrOrStderr())
			c.Usage()
			return &cmdutil.Silent{Exit: cmdutil.ExitUsage}
		},
	}
	cmd.PersistentFlags().BoolVar(&e.json, "json", false, "machine-readable JSON output (errors too, on stderr)")
	cmd.SetFlagErrorFunc(cmdutil.FlagError)
	cmd.AddCommand(newDevCmd(e), newWorkerCmd(e), newSubmitCmd(e), newStatusCmd(e), newPSCmd(e), newWaitCmd(e),
		newKillCmd(e), newLogsCmd(e), newInspectCmd(e), newStateCmd(e), newApplyCmd(e))
	return cmd
}

// loadConfig is csa's configuration for the current directory's project.
func loadConfig() (*config.Config, string, error) {
	root, err := project.FindRoot(".")
	if err != nil {
		root = ""
	}
	cfg, err := configAt(root)
	return cfg, root, err
}

// configAt is csa's configuration for the project at root (the global
// file alone for "").
func configAt(root string) (*config.Config, error) {
	l, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	return &l.Config, nil
}

// open connects to the configured cluster and opens csa's streams.
func open(ctx context.Context, cfg *config.Config, name string) (*cluster.Cluster, error) {
	nc, err := cluster.Connect(cfg.Cluster, name)
	if err != nil {
		if err == cluster.ErrNoCluster {
			return nil, cmdutil.Usagef("%v", err)
		}
		return nil, &cmdutil.Error{Code: "cluster_unreachable", Exit: cmdutil.ExitFailed, Err: err}
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := cluster.Open(octx, nc)
	if err != nil {
		nc.Close()
		return nil, &cmdutil.Error{Code: "cluster_unavailable", Exit: cmdutil.ExitFailed, Err: err}
	}
	return c, nil
}
