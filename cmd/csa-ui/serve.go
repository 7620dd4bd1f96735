package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/loopback"
	"github.com/csa-dev/csa/internal/ui/fleet"
	"github.com/csa-dev/csa/internal/ui/web"
)

// serveOptions are the flags of `csa-ui serve`.
type serveOptions struct {
	addr        string
	all, asJSON bool
}

// serveCmd is `csa-ui serve`.
func serveCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:PORT] [--all] [--json]",
		Short: "The same view as a local web page: prints its URL (with a token) and serves until interrupted",
		Long: `The session tree as a local web page: prints its URL (with a token) and serves
until interrupted; --addr must be a loopback address (default 127.0.0.1:0).`,
		Args: cmdutil.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runServe(c.Context(), o, c.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", web.DefaultAddr, "loopback address to listen on")
	cmd.Flags().BoolVar(&o.all, "all", false, "every project's sessions")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the URL as JSON")
	return cmd
}

func runServe(ctx context.Context, o *serveOptions, stdout io.Writer) error {
	if err := loopback.CheckAddr(o.addr); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	v, err := newViews(o.all)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	feed := web.NewFeed(v.reader, fleet.Refresh)
	go feed.Run(ctx)
	s := &web.Server{Token: web.NewToken(), CSA: v.csa, Feed: feed, Refresh: time.Second}
	url := fmt.Sprintf("http://%s/?token=%s", ln.Addr(), s.Token)
	if o.asJSON {
		json.NewEncoder(stdout).Encode(map[string]string{"url": url, "addr": ln.Addr().String(), "token": s.Token})
	} else {
		fmt.Fprintf(stdout, "csa: the web view is at %s (Ctrl-C stops it)\n", url)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
