package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// workerOptions are csa worker's flags.
type workerOptions struct {
	labels, name string
	max          int
}

func newWorkerCmd(e *env) *cobra.Command {
	var o workerOptions
	cmd := &cobra.Command{
		Use:   "worker [--labels k=v,...] [--max-concurrent N] [--name ID]",
		Short: "Take remote runs from the cluster's queue and run them here, until SIGINT or SIGTERM",
		RunE: func(c *cobra.Command, args []string) error {
			return runWorker(c.Context(), e, o, args)
		},
	}
	cmd.Flags().StringVar(&o.labels, "labels", "", "this worker's labels, k=v,... (a run's --labels must all match)")
	cmd.Flags().IntVar(&o.max, "max-concurrent", 2, "remote runs at once")
	cmd.Flags().StringVar(&o.name, "name", "", "worker id (default HOST-PID-SUFFIX)")
	return cmd
}

// runWorker is `csa worker`: take runs from the cluster's queue until
// SIGINT or SIGTERM, then follow the runs taken to their end.
func runWorker(ctx context.Context, e *env, o workerOptions, args []string) error {
	host, _ := os.Hostname()
	if len(args) > 0 || o.max < 1 {
		return cmdutil.Usagef("csa worker [--labels k=v,...] [--max-concurrent N>=1] [--name ID]")
	}
	ls, err := remoterun.ParseLabels(o.labels)
	if err != nil {
		return err
	}
	name := o.name
	if name == "" {
		name = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), session.NewID(e.now())[20:])
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	csa, err := proc.Sibling("csa")
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa worker "+name)
	if err != nil {
		return err
	}
	defer c.NC.Close()
	w := &cluster.Worker{
		C: c, ID: name, Host: host, Labels: ls, MaxConcurrent: o.max, Now: e.now, Log: e.errOut,
		Local: &cluster.Local{CSA: csa, Config: cfg, Env: os.Environ(), Getenv: e.getenv},
	}
	return w.Run(ctx)
}
