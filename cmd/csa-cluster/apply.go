package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/gittree"
)

// applied is `csa apply --json`'s answer.
type applied struct {
	SessionID string   `json:"session_id"`
	Applied   bool     `json:"applied"`
	Check     bool     `json:"check"`
	Files     []string `json:"files"`
	Conflicts []string `json:"conflicts"`
	Detail    string   `json:"detail,omitempty"`
}

func newApplyCmd(e *env) *cobra.Command {
	var check, printDiff bool
	cmd := &cobra.Command{
		Use:   "apply ID [--check | --diff]",
		Short: "A remote session's diff, applied to the work tree holding the current directory",
		RunE: func(c *cobra.Command, args []string) error {
			return runApply(c.Context(), e, check, printDiff, args)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "only tell whether the diff applies")
	cmd.Flags().BoolVar(&printDiff, "diff", false, "print the diff instead of applying it")
	return cmd
}

// runApply is `csa apply ID`: the agent's diff of a remote session,
// applied to the work tree holding the current directory, all of it or
// nothing. Exit 0 applied (or would, with --check), 1 it conflicts with
// the local tree, 2 usage, 3 no such session or no diff.
func runApply(ctx context.Context, e *env, check, printDiff bool, args []string) error {
	if len(args) != 1 {
		return cmdutil.Usagef("give one session id")
	}
	id := args[0]
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	if !printDiff {
		if _, err := g.Top(ctx, "."); err != nil {
			if errors.Is(err, gittree.ErrNotRepo) {
				return cmdutil.Usagef("csa apply applies to a git work tree, and this directory is not in one")
			}
			return err
		}
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa apply")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	_, diff, err := c.Result(ctx, id)
	switch {
	case errors.Is(err, cluster.ErrNotFound):
		return cmdutil.Refused("not_found", err)
	case errors.Is(err, cluster.ErrNoDiff), errors.Is(err, cluster.ErrNoTree), errors.Is(err, cluster.ErrNotEnded):
		return cmdutil.Refused("no_diff", fmt.Errorf("session %s: %w", id, err))
	case err != nil:
		return cmdutil.Refused("no_diff", err)
	}
	if printDiff {
		_, err := e.out.Write(diff)
		return err
	}
	files, err := g.Apply(ctx, ".", diff, check)
	ans := applied{SessionID: id, Applied: err == nil && !check, Check: check, Files: files, Conflicts: []string{}}
	var conflict *gittree.Conflict
	if errors.As(err, &conflict) {
		ans.Conflicts, ans.Detail = conflict.Paths, conflict.Detail
	} else if err != nil {
		return err
	}
	if ans.Files == nil {
		ans.Files = []string{}
	}
	if e.json {
		if err := json.NewEncoder(e.out).Encode(ans); err != nil {
			return err
		}
	} else if conflict == nil {
		verb := "applied"
		if check {
			verb = "applies cleanly"
		}
		fmt.Fprintf(e.out, "%s: %s (%d files: %s)\n", id, verb, len(files), strings.Join(files, ", "))
	} else {
		fmt.Fprintf(e.errOut, "csa apply: %s does not apply; nothing was changed. Conflicting paths:\n  %s\n%s\n",
			id, strings.Join(conflict.Paths, "\n  "), conflict.Detail)
	}
	if conflict != nil {
		return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
	}
	return nil
}
