package taskgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
)

// Launcher starts runs as `csa run -d` child processes: each a detached
// session of its own, so it outlives a runner that dies. It is the one
// launcher of csa's runners (todo run, batch, workflow).
type Launcher struct {
	Exe string   // csa itself
	Env []string // the child's environment
	Dir string   // its working directory
	// Grace is how long a child csa gets after SIGTERM when ctx ends.
	Grace time.Duration
}

// Launch runs `csa run --detach --json --session-id ID [--wait] [--tool
// T] [--tier X] [--model M] [--cd D] [--worktree-base R] [--isolate W] [--timeout D] [--max-cost USD] [--worktree=B] -` with the prompt on
// stdin (no size limit, not in ps). queue adds --wait: it queues for a
// slot of the tool (tools.NAME.max_concurrent). The caller chose id and
// recorded it before: an error that Is ErrSessionExists means an earlier
// launch of it made the session (wait for it, never start it again); a
// child that refused is a *ChildError.
func (l *Launcher) Launch(ctx context.Context, id string, s Spec, queue bool) error {
	args := []string{"run", "--detach", "--json", "--session-id", id}
	if queue {
		args = append(args, "--wait")
	}
	for _, kv := range [][2]string{{"--tool", s.Tool}, {"--tier", s.Tier}, {"--model", s.Model}, {"--cd", s.Dir}, {"--worktree-base", s.WorktreeBase}, {"--isolate", s.Isolate}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	if s.Timeout > 0 {
		args = append(args, "--timeout", s.Timeout.String())
	}
	if s.MaxCostUSD > 0 {
		args = append(args, "--max-cost", strconv.FormatFloat(s.MaxCostUSD, 'f', -1, 64))
	}
	if s.Worktree != nil {
		args = append(args, fmt.Sprintf("--worktree=%t", *s.Worktree))
	}
	out, err := l.csa(ctx, append(args, "-"), s.Prompt)
	if err != nil {
		return err
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(bytes.TrimSpace(out.Stdout), &res) != nil || res.SessionID == "" {
		return newChildError("run", out)
	}
	if res.SessionID != id {
		return fmt.Errorf("csa run named its session %s, not %s", res.SessionID, id)
	}
	return nil
}

// ErrSessionExists is a launch whose session id names a session that
// exists.
var ErrSessionExists = errors.New("session exists")

// ChildError is a child csa that exited without the answer asked for:
// its JSON error (code and message) when it printed one, else the last
// line of its stderr.
type ChildError struct {
	Cmd      string // run, wait
	ExitCode int
	Code     string
	Message  string
}

func (e *ChildError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("csa %s exited %d: %s (%s)", e.Cmd, e.ExitCode, e.Message, e.Code)
	}
	return fmt.Sprintf("csa %s exited %d: %s", e.Cmd, e.ExitCode, e.Message)
}

// Is makes a refusal of an existing session id ErrSessionExists, and one
// of a session that does not exist ErrNoSession.
func (e *ChildError) Is(target error) bool {
	return (target == ErrSessionExists && e.Code == "session_exists") || (target == ErrNoSession && e.Code == "not_found")
}

func newChildError(cmd string, out *proc.Captured) *ChildError {
	e := &ChildError{Cmd: cmd, ExitCode: out.ExitCode}
	e.Code, e.Message = errline.Parse(out.Stderr)
	return e
}

// CSA runs tasks with a Launcher and waits for them with `csa wait`.
type CSA struct {
	Launcher
	Tool string // the tool of tasks that name neither tool nor tier ("" csa's default)
	// Worktree, when set, is whether tasks that do not say run in a git
	// worktree of their own.
	Worktree *bool
	// Isolate, when set, is what tasks that do not say confine (csa run
	// --isolate).
	Isolate string
	// MaxCostUSD is the budget of tasks that have none (csa run
	// --max-cost); 0 for no limit.
	MaxCostUSD float64
}

// Start launches t's run as session id, queueing for a slot of its tool.
func (c *CSA) Start(ctx context.Context, t *Task, id string) error {
	s := t.Spec
	if s.Tool == "" && s.Tier == "" {
		s.Tool = c.Tool
	}
	if s.Worktree == nil {
		s.Worktree = c.Worktree
	}
	if s.Isolate == "" {
		s.Isolate = c.Isolate
	}
	if s.MaxCostUSD == 0 {
		s.MaxCostUSD = c.MaxCostUSD
	}
	return c.Launch(ctx, id, s, true)
}

// Exists runs `csa inspect --json ID`, bounded: a session it finds
// exists.
func (c *CSA) Exists(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, existsBound)
	defer cancel()
	out, err := c.csa(ctx, []string{"inspect", "--json", id}, "")
	return err == nil && out.ExitCode == 0
}

// existsBound bounds the look an interrupted scheduler takes.
const existsBound = 30 * time.Second

// Wait runs `csa wait --json ID`.
func (c *CSA) Wait(ctx context.Context, id string) (Outcome, error) {
	out, err := c.csa(ctx, []string{"wait", "--json", id}, "")
	if err != nil {
		return Outcome{}, err
	}
	var res struct {
		Sessions []struct {
			State   string `json:"state"`
			Reason  string `json:"reason"`
			Failure *struct {
				Class string `json:"class"`
			} `json:"failure"`
		} `json:"sessions"`
	}
	if json.Unmarshal(bytes.TrimSpace(out.Stdout), &res) != nil || len(res.Sessions) != 1 {
		return Outcome{}, newChildError("wait", out)
	}
	s := res.Sessions[0]
	o := Outcome{OK: out.ExitCode == 0, State: s.State, Reason: s.Reason}
	if s.Failure != nil {
		o.Class = s.Failure.Class
		if o.Reason == "" {
			o.Reason = o.Class
		}
	}
	return o, nil
}

func (l *Launcher) csa(ctx context.Context, args []string, stdin string) (*proc.Captured, error) {
	out, err := proc.Capture(ctx, proc.Spec{
		Path: l.Exe, Args: args, Env: l.Env, Dir: l.Dir,
		Stdin: strings.NewReader(stdin), DieWithParent: true,
	}, l.Grace)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("csa %s: %w", args[0], context.Cause(ctx))
	case out == nil:
		return nil, fmt.Errorf("csa %s: %w", args[0], err)
	}
	return out, nil
}
