// Package logs implements `csa logs`: a session's recorded output or
// events, optionally followed while it runs.
package logs

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa logs`.
type Options struct {
	F      *cmdutil.Factory
	ID     string
	Follow bool
	Events bool
	Stderr bool
	Poll   time.Duration
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f, Poll: 100 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "logs ID [-f] [--events | --stderr]",
		Short: "Print a session's recorded output (or events)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.ID = args[0]
			return Run(o)
		},
	}
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "keep printing while the session runs")
	cmd.Flags().BoolVar(&o.Events, "events", false, "print the normalised events (JSONL)")
	cmd.Flags().BoolVar(&o.Stderr, "stderr", false, "print the program's standard error")
	return cmd
}

// Run copies the chosen record to stdout, byte for byte.
func Run(o *Options) error {
	if o.Events && o.Stderr {
		return cmdutil.Usagef("--events and --stderr cannot be combined")
	}
	store, _, err := o.F.CwdStore()
	if err != nil {
		return err
	}
	id, err := store.Resolve(o.ID)
	if err != nil {
		return err
	}
	name := session.OutputFile
	if o.Events {
		name = session.EventsFile
	} else if o.Stderr {
		name = session.StderrFile
	}
	path := store.Path(id, name)
	var off int64
	for {
		// Read the state before the file: whatever was written before the
		// session ended is then certain to be copied.
		st, err := o.F.Current(store, id)
		if err != nil {
			return err
		}
		n, err := copyFrom(o.F.IO.Out, path, off)
		if err != nil {
			return err
		}
		off += n
		if !o.Follow || st.Status.Ended() {
			return nil
		}
		time.Sleep(o.Poll)
	}
}

func copyFrom(w io.Writer, path string, off int64) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.Copy(w, f)
}
