package taskgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// CSA runs tasks as `csa run -d` child processes: each a detached
// session of its own, so it outlives a scheduler that dies, and is waited
// for with `csa wait`.
type CSA struct {
	Exe  string   // csa itself
	Env  []string // the children's environment
	Dir  string   // their working directory
	Tool string   // the tool of tasks that name neither tool nor tier ("" csa's default)
	// Grace is how long a child csa gets after SIGTERM when ctx ends.
	Grace time.Duration
}

// Start runs `csa run -d --json --wait`: it queues for a slot of the
// tool (tools.NAME.max_concurrent) and returns the session id.
func (c *CSA) Start(ctx context.Context, t *Task) (string, error) {
	args := []string{"run", "--detach", "--json", "--wait"}
	tool := t.Tool
	if tool == "" && t.Tier == "" {
		tool = c.Tool
	}
	if tool != "" {
		args = append(args, "--tool", tool)
	}
	if t.Tier != "" {
		args = append(args, "--tier", t.Tier)
	}
	if t.Model != "" {
		args = append(args, "--model", t.Model)
	}
	if t.Dir != "" {
		args = append(args, "--cd", t.Dir)
	}
	if t.Timeout > 0 {
		args = append(args, "--timeout", t.Timeout.String())
	}
	args = append(args, "-") // the prompt on stdin: no size limit, not in ps
	out, err := c.csa(ctx, args, t.Prompt)
	if err != nil {
		return "", err
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out.Stdout, &res) != nil || res.SessionID == "" {
		return "", fmt.Errorf("csa run exited %d: %s", out.ExitCode, childError(out.Stderr))
	}
	return res.SessionID, nil
}

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
		if strings.Contains(out.Stderr, `"code":"not_found"`) {
			return Outcome{}, fmt.Errorf("session %s: %w", id, ErrNoSession)
		}
		return Outcome{}, fmt.Errorf("csa wait exited %d: %s", out.ExitCode, childError(out.Stderr))
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

func (c *CSA) csa(ctx context.Context, args []string, stdin string) (*proc.Captured, error) {
	out, err := proc.Capture(ctx, proc.Spec{
		Path: c.Exe, Args: args, Env: c.Env, Dir: c.Dir,
		Stdin: strings.NewReader(stdin), DieWithParent: true,
	}, c.Grace)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("csa %s: %w", args[0], context.Cause(ctx))
	case out == nil:
		return nil, fmt.Errorf("csa %s: %w", args[0], err)
	}
	return out, nil
}

// childError is the message of a child csa's JSON error, else the last
// line of its stderr.
func childError(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(lines[i]), &e) == nil && e.Error.Message != "" {
			return e.Error.Message + " (" + e.Error.Code + ")"
		}
	}
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	return "no answer"
}
