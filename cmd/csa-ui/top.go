package main

import (
	"context"
	"errors"
	"flag"

	tea "charm.land/bubbletea/v2"

	"github.com/csa-dev/csa/internal/ui/tui"
)

// runTop is `csa-ui top`.
func runTop(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	all := fs.Bool("all", false, "every project's sessions")
	if err := parse(fs, args); err != nil {
		return err
	}
	v, err := newViews(*all)
	if err != nil {
		return err
	}
	m := tui.New(ctx, tui.Options{Reader: v.reader, CSA: v.csa, All: *all})
	// The context's signals end the program; SIGINT typed in the view is a
	// key (ctrl+c quits).
	_, err = tea.NewProgram(m, tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
