package main

import (
	"context"
	"fmt"
	"os"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// runWorker is `csa worker`: take runs from the cluster's queue until
// SIGINT or SIGTERM, then follow the runs taken to their end.
func runWorker(ctx context.Context, e *env, args []string) error {
	fs := flags("worker")
	labels := fs.String("labels", "", "this worker's labels, k=v,... (a run's --labels must all match)")
	max := fs.Int("max-concurrent", 2, "remote runs at once")
	host, _ := os.Hostname()
	name := fs.String("name", "", "worker id (default HOST-PID-SUFFIX)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *max < 1 {
		return cmdutil.Usagef("csa worker [--labels k=v,...] [--max-concurrent N>=1] [--name ID]")
	}
	ls, err := remoterun.ParseLabels(*labels)
	if err != nil {
		return err
	}
	if *name == "" {
		*name = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), session.NewID(e.now())[20:])
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	csa, err := proc.Sibling("csa")
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa worker "+*name)
	if err != nil {
		return err
	}
	defer c.NC.Close()
	w := &cluster.Worker{
		C: c, ID: *name, Host: host, Labels: ls, MaxConcurrent: *max, Now: e.now, Log: e.errOut,
		Local: &cluster.Local{CSA: csa, Config: cfg, Env: os.Environ(), Getenv: e.getenv},
	}
	return w.Run(ctx)
}
