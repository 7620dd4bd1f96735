package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

func newSubmitCmd(e *env) *cobra.Command {
	var from string
	var remoteCwd bool
	cmd := &cobra.Command{
		Use:   "submit --request FILE|- [--remote-cwd]",
		Short: "Queue a run csa run --remote asked for (its request, JSON) and print its session id",
		RunE: func(c *cobra.Command, args []string) error {
			return runSubmit(c.Context(), e, from, remoteCwd, args)
		},
	}
	cmd.Flags().StringVar(&from, "request", "", `the request as JSON (remoterun.Request), "-" for standard input`)
	cmd.Flags().BoolVar(&remoteCwd, "remote-cwd", false, "send no working tree: run in the request's cwd as it is on the worker")
	return cmd
}

// runSubmit is `csa run --remote`: queue the request csa built (its
// policy is remoterun's, applied there) and print its session id. The
// cluster is the one configured for the request's project.
func runSubmit(ctx context.Context, e *env, from string, remoteCwd bool, args []string) error {
	if from == "" || len(args) > 0 {
		return cmdutil.Usagef("csa-cluster submit --request FILE|- [--remote-cwd] [--json] (csa run --remote writes the request)")
	}
	req, err := readRequest(e, from)
	if err != nil {
		return err
	}
	cfg, err := configAt(req.ProjectRoot)
	if err != nil {
		return err
	}
	if !cfg.Cluster.Enabled() {
		return cmdutil.Usagef("%v", cluster.ErrNoCluster)
	}
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	if !remoteCwd {
		// Refused before connecting: outside a repository nothing can
		// travel.
		if _, err := g.Top(ctx, req.Cwd); errors.Is(err, gittree.ErrNotRepo) {
			return cmdutil.Usagef("%s is not in a git repository: a remote run takes its working tree as git "+
				"(HEAD and the uncommitted changes); --remote-cwd runs in --cd DIR as it is on the worker instead", req.Cwd)
		}
	}
	c, err := open(ctx, cfg, "csa run --remote")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	req.ID = session.NewID(e.now())
	if !remoteCwd {
		if req.Tree, err = c.ShipTree(ctx, g, req.ID, req.Cwd, cfg.Cluster.Remote); err != nil {
			if errors.Is(err, gittree.ErrNotRepo) || errors.Is(err, gittree.ErrNoCommit) {
				return cmdutil.Usagef("%v", err)
			}
			return err
		}
	}
	r, err := c.Submit(ctx, *req, e.now())
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

// readRequest reads the request from file, "-" for standard input.
func readRequest(e *env, file string) (*remoterun.Request, error) {
	var in io.Reader = e.in
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, cmdutil.Usagef("--request: %v", err)
		}
		defer f.Close()
		in = f
	}
	req, err := remoterun.Read(in)
	if err != nil {
		return nil, cmdutil.Usagef("--request: %v", err)
	}
	return req, nil
}
