// Command csa-cluster is csa's NATS JetStream side: `csa cluster`, `csa
// worker` and `csa run --remote` hand over to it. It is a program of its
// own, built and installed beside csa, because the NATS client and server
// libraries would slow every csa start (see docs/performance.md, issue 16).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/project"
)

const usage = `usage: csa-cluster COMMAND [flags]   (run by csa: csa cluster, csa worker, csa run --remote)
  dev [--port N]                     an embedded JetStream server on 127.0.0.1, state in csa's state directory
  worker [--labels k=v,...] [--max-concurrent N] [--name ID]
  submit --request FILE|- [--remote-cwd]   a request csa run --remote built (JSON)
  status [--json]                    workers, queue, servers, streams
  ps [--all] [--json]                remote sessions' records
  ps [--all] --rows [--now NS]       their rows as csa ps lists them, one a line (csa ps runs this)
  wait [--any] [--timeout D] [--json] ID...
  kill [--grace D] [--json] ID...    remote sessions and their remote descendants, deepest first
  logs ID [-f] [--raw | --events | --stderr]
  inspect ID [--json]                a remote session's record
  state ID... [--json]               csa status of remote sessions`

// command is one subcommand: it gets its own flags and returns an error
// for the one table of exit codes (cmdutil.Classify).
type command func(ctx context.Context, e *env, args []string) error

var commands = map[string]command{
	"dev": runDev, "worker": runWorker, "submit": runSubmit, "status": runStatus, "ps": runPS, "wait": runWait,
	"apply": runApply,
	"kill":  runKill, "logs": runLogs, "inspect": runInspect, "state": runState,
}

// env is what a command reads of the world.
type env struct {
	in          io.Reader
	out, errOut io.Writer
	json        bool
	getenv      func(string) string
	now         func() time.Time
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	e := &env{in: os.Stdin, out: os.Stdout, errOut: os.Stderr, getenv: os.Getenv, now: time.Now}
	if len(args) == 0 || commands[args[0]] == nil {
		fmt.Fprintln(os.Stderr, usage)
		return cmdutil.ExitUsage
	}
	for _, a := range args[1:] {
		if a == "--json" || a == "--json=true" {
			e.json = true
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := commands[args[0]](ctx, e, args[1:])
	if err == nil {
		return cmdutil.ExitOK
	}
	if s, ok := err.(*cmdutil.Silent); ok {
		return s.Exit
	}
	io := &cmdutil.IOStreams{Out: e.out, ErrOut: e.errOut}
	io.PrintError(err, e.json)
	_, code := cmdutil.Classify(err)
	return code
}

// flags is a flag set whose errors are usage errors.
func flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("json", false, "JSON output")
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return cmdutil.Usagef("csa-cluster %s: %v", fs.Name(), err)
	}
	return nil
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
