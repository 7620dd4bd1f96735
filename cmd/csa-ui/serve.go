package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/csa-dev/csa/internal/loopback"
	"github.com/csa-dev/csa/internal/ui/fleet"
	"github.com/csa-dev/csa/internal/ui/web"
)

// runServe is `csa-ui serve`.
func runServe(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", web.DefaultAddr, "loopback address to listen on")
	all := fs.Bool("all", false, "every project's sessions")
	asJSON := fs.Bool("json", false, "print the URL as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := loopback.CheckAddr(*addr); err != nil {
		return usagef("%v", err)
	}
	v, err := newViews(*all)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	feed := web.NewFeed(v.reader, fleet.Refresh)
	go feed.Run(ctx)
	s := &web.Server{Token: web.NewToken(), CSA: v.csa, Feed: feed, Refresh: time.Second}
	url := fmt.Sprintf("http://%s/?token=%s", ln.Addr(), s.Token)
	if *asJSON {
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
