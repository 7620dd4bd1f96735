package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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

// runWait is `csa wait` for remote sessions: until each (--any: one) has
// ended, with csa wait's exit statuses. It reaps as it looks: a session
// whose worker stopped heartbeating ends crashed, "worker lost".
func runWait(ctx context.Context, e *env, args []string) error {
	fs := flags("wait")
	anyOne := fs.Bool("any", false, "return when one session has ended")
	timeout := new(time.Duration)
	fs.Var(cmdutil.Duration(timeout, 0), "timeout", "give up after this long (0: never)")
	watch := fs.Bool("watch", false, "never settle: print the sessions as one JSON line whenever they change (csa wait mixing local and remote ids reads it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	ids := fs.Args()
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
	if *timeout > 0 {
		deadline = time.After(*timeout)
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
		if *watch && err == nil {
			if b, _ := json.Marshal(entries); !bytes.Equal(b, shown) {
				shown = b
				if _, err := e.out.Write(append(b, '\n')); err != nil {
					return err
				}
			}
		} else if done, code := settle(entries, *anyOne); done && err == nil {
			return report(e, entries, code, "")
		}
		select {
		case <-deadline:
			return report(e, entries, cmdutil.ExitTimeout, "wait timed out")
		case <-ctx.Done():
			if *watch {
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
