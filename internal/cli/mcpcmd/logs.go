package mcpcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/mcp/link"
)

// followPoll is how often logs -f looks for more.
const followPoll = 100 * time.Millisecond

func logsCmd(f *cmdutil.Factory) *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "The hub's log: its own lines and its MCP servers' stderr (-f to follow)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := link.LogFile(f.Getenv)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return &cmdutil.Error{Code: "no_hub", Exit: ExitNoHub, Err: fmt.Errorf("no MCP hub has run yet (no %s)", path)}
			}
			var off int64
			var was os.FileInfo
			for {
				fi, err := os.Stat(path)
				if err == nil && was != nil && (!os.SameFile(fi, was) || fi.Size() < off) {
					off = 0 // rotated by a hub starting: the new file from its start
				}
				if err == nil {
					was = fi
				}
				n, err := copyFrom(f.IO.Out, path, off)
				if err != nil {
					return err
				}
				off += n
				if !follow {
					return nil
				}
				if err := interrupt.Pause(cmd.Context(), followPoll); err != nil {
					return err
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is added, until interrupted")
	return cmd
}

// copyFrom copies path from off to w; a missing file is nothing to copy.
func copyFrom(w io.Writer, path string, off int64) (int64, error) {
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	if _, err := fh.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.Copy(w, fh)
}
