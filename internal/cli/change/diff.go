package change

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/takeback"
)

// fileStat is one path of csa diff --json.
type fileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary"`
}

// diffView is csa diff --json's answer.
type diffView struct {
	SessionID string     `json:"session_id"`
	Branch    string     `json:"branch"`
	From      string     `json:"from"` // the snapshot commit
	To        string     `json:"to"`   // the run's head
	Files     []fileStat `json:"files"`
	// Diff is the binary diff git apply takes; left out with --stat.
	Diff     *string           `json:"diff,omitempty"`
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// NewDiffCmd builds `csa diff`.
func NewDiffCmd(f *cmdutil.Factory) *cobra.Command {
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff ID [--stat]",
		Short: "Print the change a run made, as a diff git apply takes",
		Long: `Print what a run changed: for a run in a worktree of its own (csa run
--worktree), the diff from its snapshot of the caller's tree to the commit
recording its change, binary-safe (git apply takes it); --stat prints its size
by file instead. A session this machine does not hold is looked up on the
cluster ([cluster] url): a remote run's diff.
Exit status: 0, 2 usage, 3 the session has no change (it ran in the caller's
tree, or has not ended).`,
		Args: cmdutil.ExactArgs(1, "a session id (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := Local(ctx, f, args[0])
			if NotHere(err) && !stat && !f.JSON {
				if _, ok := clustercmd.Configured(f); ok {
					return clustercmd.HandOver("apply", "--diff", "--", args[0])
				}
			}
			if err != nil {
				return err
			}
			g := Git(f)
			if !f.JSON {
				out, err := takeback.StatText(ctx, g, c)
				if !stat {
					out, err = takeback.Diff(ctx, g, c)
				}
				if err != nil {
					return err
				}
				_, err = f.IO.Out.Write(out)
				return err
			}
			stats, err := takeback.Stat(ctx, g, c)
			if err != nil {
				return err
			}
			v := &diffView{SessionID: c.SessionID, Branch: c.Branch, From: c.Snapshot, To: c.Head, Files: []fileStat{}}
			for _, s := range stats {
				v.Files = append(v.Files, fileStat{Path: s.Path, Added: s.Added, Deleted: s.Deleted, Binary: s.Binary})
			}
			if !stat {
				d, err := takeback.Diff(ctx, g, c)
				if err != nil {
					return err
				}
				text := string(d)
				v.Diff = &text
			}
			return printJSON(f, v)
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "print the change's size by file instead of the diff")
	return cmd
}
