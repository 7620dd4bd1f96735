package main

import (
	"bytes"
	"context"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/logs"
	"github.com/csa-dev/csa/internal/cluster"
)

// logsOptions are csa-cluster logs's flags.
type logsOptions struct{ follow, events, raw, stderr bool }

func newLogsCmd(e *env) *cobra.Command {
	var o logsOptions
	cmd := &cobra.Command{
		Use:   "logs ID [-f] [--raw | --events | --stderr]",
		Short: "A remote session's output, replayed and, with -f, followed until it ends",
		RunE: func(c *cobra.Command, args []string) error {
			return runLogs(c.Context(), e, o, args)
		},
	}
	cmd.Flags().BoolVarP(&o.follow, "follow", "f", false, "keep printing while the session runs")
	cmd.Flags().BoolVar(&o.events, "events", false, "the normalised events (JSONL)")
	cmd.Flags().BoolVar(&o.raw, "raw", false, "the program's standard output, byte for byte")
	cmd.Flags().BoolVar(&o.stderr, "stderr", false, "the program's standard error")
	return cmd
}

// runLogs is `csa logs` for a remote session: its output subject replayed
// from the first message and, with -f, followed until the session ends.
// The text view is the local one's (the agent's text events); --events
// (or --json) gives the event lines, --raw and --stderr the program's
// standard output and error as the worker read them.
func runLogs(ctx context.Context, e *env, o logsOptions, args []string) error {
	if len(args) != 1 {
		return cmdutil.Usagef("csa-cluster logs ID [-f] [--raw | --events | --stderr]")
	}
	if btoi(o.events)+btoi(o.raw)+btoi(o.stderr) > 1 {
		return cmdutil.Usagef("--raw, --events and --stderr cannot be combined")
	}
	id := args[0]
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa logs")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	subject, emit := cluster.OutputSubject(id), textEmitter(e)
	switch {
	case o.raw:
		subject, emit = cluster.RawSubject(id), bytesEmitter(e, false)
	case o.stderr:
		subject, emit = cluster.StderrSubject(id), bytesEmitter(e, false)
	case o.events || e.json:
		emit = bytesEmitter(e, true)
	}
	err = c.Replay(ctx, id, subject, o.follow, &cluster.Reaper{C: c, Now: e.now}, emit)
	if ctx.Err() != nil {
		return &cmdutil.Silent{Exit: cmdutil.ExitInterrupted}
	}
	return notFound(err)
}

// textEmitter prints the agent's text of each event line, as csa logs
// does for a local session.
func textEmitter(e *env) func([]byte) error {
	return func(line []byte) error {
		_, err := logs.WriteText(e.out, append(bytes.Clone(line), '\n'))
		return err
	}
}

// bytesEmitter copies each message; lines: each is one line.
func bytesEmitter(e *env, lines bool) func([]byte) error {
	return func(b []byte) error {
		if _, err := e.out.Write(b); err != nil {
			return err
		}
		if lines {
			_, err := e.out.Write([]byte{'\n'})
			return err
		}
		return nil
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
