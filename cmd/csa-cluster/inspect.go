package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/session"
)

// inspectView is `csa inspect --json` of a remote session: the fields of
// a local session's state, its hook events (from its output), and where
// it runs. The local answer's dir and files are the worker's and are
// not given; remote.local_id names the session in the worker's store.
type inspectView struct {
	*session.State
	Worker string         `json:"worker"`
	Remote cluster.Remote `json:"remote"`
	Hooks  []events.Event `json:"hooks"`
	// What it cost; its tree is the session alone: the runs it started
	// are its worker's.
	cost.View
}

// lookRemote reads session id's record, reaped: a session whose worker's
// heartbeat is gone from the cluster reads crashed (one look cannot tell
// a worker silent for 5 s; csa wait and logs -f watch long enough).
func lookRemote(ctx context.Context, c *cluster.Cluster, e *env, id string) (*cluster.Record, error) {
	r, _, err := c.Get(ctx, id)
	if err != nil {
		return nil, notFound(err)
	}
	if r.Status.Ended() {
		return r, nil
	}
	return (&cluster.Reaper{C: c, Now: e.now}).Check(ctx, r)
}

func newInspectCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "inspect ID [--json]",
		Short: "A remote session's record",
		RunE: func(c *cobra.Command, args []string) error {
			return runInspect(c.Context(), e, args)
		},
	}
}

// runInspect is `csa inspect` for a remote session.
func runInspect(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return cmdutil.Usagef("csa-cluster inspect ID [--json]")
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa inspect")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	r, err := lookRemote(ctx, c, e, args[0])
	if err != nil {
		return err
	}
	if !e.json {
		b, err := session.Encode(&r.State)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.out, "# remote session on worker %s (host %s), its local session %s there\n%s",
			orNone(r.Remote.Worker), orNone(r.Remote.Host), orNone(r.Remote.LocalID), b)
		return nil
	}
	v := inspectView{State: &r.State, Worker: r.Remote.Worker, Remote: r.Remote, Hooks: []events.Event{},
		View: cfg.PriceTable().ViewOf(&r.State, nil)}
	err = c.Replay(ctx, r.ID, cluster.OutputSubject(r.ID), false, nil, func(line []byte) error {
		var ev events.Event
		if json.Unmarshal(line, &ev) == nil && (ev.Type == events.Hook || ev.Type == events.PromptGuard) {
			v.Hooks = append(v.Hooks, ev)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return (&cmdutil.IOStreams{Out: e.out}).PrintJSON(v)
}

func orNone(s string) string {
	if s == "" {
		return "(none yet)"
	}
	return s
}

// stateRow is one session of `csa status` for remote sessions. Remote
// sessions are headless: the state is the recorded one.
type stateRow struct {
	SessionID string `json:"session_id"`
	Tool      string `json:"tool"`
	State     string `json:"state"`
	Reason    string `json:"reason"`
	Worker    string `json:"worker"`
}

func newStateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "state ID... [--json]",
		Short: "csa status of remote sessions",
		RunE: func(c *cobra.Command, args []string) error {
			return runState(c.Context(), e, args)
		},
	}
}

// runState is `csa status ID...` for remote sessions.
func runState(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return cmdutil.Usagef("give one or more session ids")
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa status")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	rows := []stateRow{}
	for _, id := range args {
		r, err := lookRemote(ctx, c, e, id)
		if err != nil {
			return err
		}
		row := stateRow{SessionID: r.ID, Tool: r.Tool, State: string(r.Status), Reason: r.Reason, Worker: r.Remote.Worker}
		if row.Reason == "" && r.Failure != nil {
			row.Reason = r.Failure.Message
		}
		rows = append(rows, row)
	}
	if e.json {
		return (&cmdutil.IOStreams{Out: e.out}).PrintJSON(map[string]any{"sessions": rows})
	}
	for _, r := range rows {
		fmt.Fprintf(e.out, "%s  %-11s  %-13s  %s\n", r.SessionID, r.Tool, r.State, r.Reason)
	}
	return nil
}
