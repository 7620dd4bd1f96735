package main

import (
	"os"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/tmux"
	"github.com/csa-dev/csa/internal/ui/fleet"
)

// views is what both views are built from: csa's own way of finding the
// project, its store and configuration, and csa itself for the actions.
type views struct {
	reader *fleet.Reader
	csa    fleet.CSA
}

func newViews(all bool) (*views, error) {
	f := &cmdutil.Factory{IO: cmdutil.System(), Getenv: os.Getenv, Environ: os.Environ, Now: time.Now, Executable: os.Executable}
	cfg, root, err := f.CwdConfig()
	if err != nil {
		return nil, err
	}
	csa, err := proc.Sibling("csa")
	if err != nil {
		return nil, err
	}
	stores := func() ([]*session.Store, error) {
		if all {
			return f.AllStores()
		}
		s, err := f.Store(root)
		if err != nil {
			return nil, err
		}
		return []*session.Store{s}, nil
	}
	bin, _ := tmux.Find()
	r := &fleet.Reader{Stores: stores, Classifier: cmdutil.Classifier(&cfg.Config), TmuxBin: bin, Now: time.Now}
	cwd, _ := os.Getwd()
	return &views{reader: r, csa: fleet.CSA{Path: csa, Dir: cwd}}, nil
}
