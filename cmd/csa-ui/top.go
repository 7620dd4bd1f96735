package main

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/ui/tui"
)

// topCmd is `csa-ui top`.
func topCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:         "top [--all]",
		Short:       "The session tree of this project (every project with --all), live, full screen",
		Args:        cmdutil.NoArgs,
		Annotations: map[string]string{readsCtrlC: "yes"},
		RunE: func(c *cobra.Command, _ []string) error {
			return runTop(c.Context(), all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every project's sessions")
	return cmd
}

func runTop(ctx context.Context, all bool) error {
	v, err := newViews(all)
	if err != nil {
		return err
	}
	m := tui.New(ctx, tui.Options{Reader: v.reader, CSA: v.csa, All: all})
	// The context's signals end the program; SIGINT typed in the view is a
	// key (ctrl+c quits).
	_, err = tea.NewProgram(m, tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
