// Package logs implements `csa logs`: a session's recorded output or
// events, optionally followed while it runs.
package logs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa logs`.
type Options struct {
	F      *cmdutil.Factory
	ID     string
	Follow bool
	Events bool
	Stderr bool
	Raw    bool
	Poll   time.Duration
	// From is a cursor into an interactive session's log.
	From string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f, Poll: 100 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "logs ID [-f] [--raw | --events | --stderr] [--from CURSOR]",
		Short: "Print what a session's agent said (or its raw output, events, stderr)",
		Long: `Print what a session's agent said (or its raw output, events, stderr).

For an interactive session: the agent's own transcript when csa can find it
(Claude Code, Codex), else the pane's output without escape sequences; --raw
gives the pane's bytes as recorded. --json answers {session_id, source, path,
text, next_cursor}; --from CURSOR continues after an earlier answer, and stays
valid however far the pane has scrolled.`,
		Args: cmdutil.ExactArgs(1, "a session id (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "keep printing while the session runs")
	cmd.Flags().BoolVar(&o.Events, "events", false, "print the normalised events (JSONL)")
	cmd.Flags().BoolVar(&o.Stderr, "stderr", false, "print the program's standard error")
	cmd.Flags().BoolVar(&o.Raw, "raw", false, "print the program's standard output byte for byte (interactive: the pane's bytes)")
	cmd.Flags().StringVar(&o.From, "from", "", "interactive sessions: continue from this cursor (next_cursor of --json)")
	return cmd
}

// Run copies the chosen record to stdout, byte for byte.
func Run(ctx context.Context, o *Options) error {
	if n := btoi(o.Events) + btoi(o.Stderr) + btoi(o.Raw); n > 1 {
		return cmdutil.Usagef("--raw, --events and --stderr cannot be combined")
	}
	store, _, err := o.F.CwdStore()
	if err != nil {
		return err
	}
	id, err := store.Resolve(o.ID)
	var nf *session.NotFoundError
	if errors.As(err, &nf) {
		if _, ok := clustercmd.Configured(o.F); ok {
			return o.remote()
		}
	}
	if err != nil {
		return err
	}
	if o.From != "" || !o.Stderr {
		st, err := store.Load(id)
		if err != nil {
			return err
		}
		if st.Interactive != nil && o.Events {
			// The wrapper's few events, then the activity journal: sends,
			// hook events, state changes.
			if _, err := copyFrom(o.F.IO.Out, store.Path(id, session.EventsFile), 0); err != nil {
				return err
			}
			_, err := copyFrom(o.F.IO.Out, store.Path(id, interactive.ActivityFile), 0)
			return err
		}
		if st.Interactive != nil {
			return o.interactiveLogs(ctx, store, st)
		}
		if o.From != "" {
			return cmdutil.Usagef("--from is for interactive sessions")
		}
	}
	// By default the agent's text, taken from the normalised events; with
	// --json the events themselves (JSON lines).
	name, copyFn := session.EventsFile, copyText
	switch {
	case o.Events || (o.F.JSON && !o.Stderr && !o.Raw):
		name, copyFn = session.EventsFile, copyFrom
	case o.Stderr:
		name, copyFn = session.StderrFile, copyFrom
	case o.Raw:
		name, copyFn = session.OutputFile, copyFrom
	}
	path := store.Path(id, name)
	var off int64
	for {
		// Read the state before the file: whatever was written before the
		// session ended is then certain to be copied.
		st, err := o.F.Current(ctx, store, id)
		if err != nil {
			return err
		}
		n, err := copyFn(o.F.IO.Out, path, off)
		if err != nil {
			return err
		}
		off += n
		if !o.Follow || st.Status.Ended() {
			return nil
		}
		if err := interrupt.Pause(ctx, o.Poll); err != nil {
			return err
		}
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

// copyText prints the text events of the complete lines after off and
// returns how many bytes it consumed.
func copyText(w io.Writer, path string, off int64) (int64, error) {
	var buf bytes.Buffer
	if _, err := copyFrom(&buf, path, off); err != nil {
		return 0, err
	}
	return WriteText(w, buf.Bytes())
}

// WriteText prints the agent's text of the complete event lines in data
// (a torn last line waits) and returns how many bytes it consumed: the
// text view of `csa logs`, of local and remote sessions alike.
func WriteText(w io.Writer, data []byte) (int64, error) {
	end := bytes.LastIndexByte(data, '\n') + 1
	evs, _, err := events.Read(bytes.NewReader(data[:end]))
	if err != nil {
		return 0, err
	}
	for _, e := range evs {
		if e.Type != agents.EvText {
			continue
		}
		var t agents.Text
		if e.Decode(&t) == nil {
			io.WriteString(w, t.Text)
			if !t.Delta && !strings.HasSuffix(t.Text, "\n") {
				io.WriteString(w, "\n")
			}
		}
	}
	return int64(end), nil
}

// remote hands the logs of a session this machine does not hold to
// csa-cluster, which replays (and follows) its output subject.
func (o *Options) remote() error {
	if o.From != "" {
		return cmdutil.Usagef("--from is for interactive sessions; remote sessions are headless")
	}
	args := []string{"logs"}
	for flag, on := range map[string]bool{"-f": o.Follow, "--events": o.Events, "--raw": o.Raw, "--stderr": o.Stderr, "--json": o.F.JSON} {
		if on {
			args = append(args, flag)
		}
	}
	return clustercmd.HandOver(append(args, "--", o.ID)...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
