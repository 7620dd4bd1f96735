package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/session"
)

// waitEntry is one session in the answer, as `csa wait --json` gives it.
type waitEntry struct {
	ID          string           `json:"id"`
	Tool        string           `json:"tool"`
	Interactive bool             `json:"interactive"`
	State       string           `json:"state"`
	Reason      string           `json:"reason"`
	ExitCode    *int             `json:"exit_code"`
	Failure     *session.Failure `json:"failure"`
	Signals     any              `json:"signals"`
	Worker      string           `json:"worker"`
}

// waitOptions are csa-cluster wait's flags.
type waitOptions struct {
	anyOne, watch bool
	timeout       time.Duration
}

func newWaitCmd(e *env) *cobra.Command {
	var o waitOptions
	cmd := &cobra.Command{
		Use:   "wait [--any] [--timeout D] [--json] ID...",
		Short: "Wait for remote sessions to end, with csa wait's answer and exit statuses",
		RunE: func(c *cobra.Command, args []string) error {
			return runWait(c.Context(), e, o, args)
		},
	}
	cmd.Flags().BoolVar(&o.anyOne, "any", false, "return when one session has ended")
	cmd.Flags().Var(cmdutil.Duration(&o.timeout, 0), "timeout", "give up after this long (0: never)")
	cmd.Flags().BoolVar(&o.watch, "watch", false, "never settle: print the sessions as one JSON line whenever they change (csa wait mixing local and remote ids reads it)")
	return cmd
}

// runWait is `csa wait` for remote sessions: until each (--any: one) has
// ended, with csa wait's exit statuses. It reaps as it looks: a session
// whose worker stopped heartbeating ends crashed, "worker lost".
func runWait(ctx context.Context, e *env, o waitOptions, ids []string) error {
	if len(ids) == 0 {
		return cmdutil.Usagef("give one or more session ids")
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa wait")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	var deadline <-chan time.Time
	if o.timeout > 0 {
		deadline = time.After(o.timeout)
	}
	reaper := &cluster.Reaper{C: c, Now: e.now}
	reaper.Watch(ctx)
	var shown []byte
	for {
		entries, err := look(ctx, c, reaper, ids)
		if err != nil {
			var nf *session.NotFoundError
			if errors.As(err, &nf) || errors.Is(err, cluster.ErrNotFound) {
				return &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
			}
			if ctx.Err() == nil {
				return err
			}
		}
		if o.watch && err == nil {
			if b, _ := json.Marshal(entries); !bytes.Equal(b, shown) {
				shown = b
				if _, err := e.out.Write(append(b, '\n')); err != nil {
					return err
				}
			}
		} else if done, code := settle(entries, o.anyOne); done && err == nil {
			return report(e, entries, code, "")
		}
		select {
		case <-deadline:
			return report(e, entries, cmdutil.ExitTimeout, "wait timed out")
		case <-ctx.Done():
			if o.watch {
				return nil
			}
			return report(e, entries, cmdutil.ExitInterrupted, "wait interrupted")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func look(ctx context.Context, c *cluster.Cluster, reaper *cluster.Reaper, ids []string) ([]waitEntry, error) {
	out := make([]waitEntry, len(ids))
	for i, id := range ids {
		r, _, err := c.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if r, err = reaper.Check(ctx, r); err != nil {
			return nil, err
		}
		out[i] = waitEntry{ID: r.ID, Tool: r.Tool, State: string(r.Status), ExitCode: r.ExitCode, Failure: r.Failure,
			Worker: r.Remote.Worker, Reason: r.Reason}
		if r.Failure != nil && r.Reason == "" {
			out[i].Reason = r.Failure.Message
		}
	}
	return out, nil
}

// settle: done when every session ended (--any: one); the exit status is
// 0 when those that ended completed, else 1.
func settle(entries []waitEntry, anyOne bool) (bool, int) {
	if len(entries) == 0 {
		return false, 0
	}
	ended, failed := 0, 0
	for _, en := range entries {
		st := session.Status(en.State)
		if !st.Ended() {
			continue
		}
		ended++
		if st != session.Completed {
			failed++
		}
	}
	switch {
	case anyOne && ended > 0:
		if failed == ended {
			return true, cmdutil.ExitFailed
		}
		return true, cmdutil.ExitOK
	case ended == len(entries) && failed > 0:
		return true, cmdutil.ExitFailed
	case ended == len(entries):
		return true, cmdutil.ExitOK
	}
	return false, 0
}

func report(e *env, entries []waitEntry, code int, note string) error {
	if e.json {
		if entries == nil {
			entries = []waitEntry{}
		}
		json.NewEncoder(e.out).Encode(map[string]any{"sessions": entries, "until": "completed", "timed_out": code == cmdutil.ExitTimeout})
	} else {
		for _, en := range entries {
			if en.Reason == "" {
				fmt.Fprintf(e.out, "%s\t%s\n", en.ID, en.State)
			} else {
				fmt.Fprintf(e.out, "%s\t%s\t%s\n", en.ID, en.State, en.Reason)
			}
		}
	}
	if note != "" {
		fmt.Fprintln(e.errOut, "csa: "+note)
	}
	if code != cmdutil.ExitOK {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}
