package review

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// Runner starts sub-agents as `csa run --json` child processes, so each is
// a session of its own in the genealogy, read-only (--yolo=false).
type Runner struct {
	Exe string   // csa itself
	Env []string // the children's environment, with the genealogy of the parent session
	Dir string   // their working directory
	// Timeout is passed as --timeout when set; otherwise the configured
	// defaults.timeout applies.
	Timeout time.Duration
	// Grace is how long a child csa gets after SIGTERM, when ctx ends, to
	// stop its agent and record the end.
	Grace time.Duration
}

// RunResult is the answer of `csa run --json`.
type RunResult struct {
	SessionID         string           `json:"session_id"`
	Tool              string           `json:"tool"`
	Model             string           `json:"model"`
	Status            session.Status   `json:"status"`
	ExitCode          *int             `json:"exit_code"`
	Result            string           `json:"result"`
	ProviderSessionID string           `json:"provider_session_id"`
	DurationMS        int64            `json:"duration_ms"`
	Failure           *session.Failure `json:"failure"`
}

// Start runs a new session of tool (with model, when set) on prompt.
func (r *Runner) Start(ctx context.Context, tool, model, prompt string) (*RunResult, error) {
	args := []string{"--tool", tool}
	if model != "" {
		args = append(args, "--model", model)
	}
	return r.run(ctx, args, prompt)
}

// Resume continues session id with prompt.
func (r *Runner) Resume(ctx context.Context, id, prompt string) (*RunResult, error) {
	return r.run(ctx, []string{"--session", id}, prompt)
}

// Work runs a new session of tool that may change files (csa run's
// permission default, not --yolo=false), with more csa run flags (a
// worktree of its own, say).
func (r *Runner) Work(ctx context.Context, tool string, flags []string, prompt string) (*RunResult, error) {
	return r.start(ctx, append([]string{"run", "--json", "--tool", tool}, flags...), prompt)
}

func (r *Runner) run(ctx context.Context, extra []string, prompt string) (*RunResult, error) {
	return r.start(ctx, append([]string{"run", "--json", "--yolo=false"}, extra...), prompt)
}

func (r *Runner) start(ctx context.Context, args []string, prompt string) (*RunResult, error) {
	if r.Timeout > 0 {
		args = append(args, "--timeout", r.Timeout.String())
	}
	args = append(args, "-") // the prompt on stdin: no size limit, not in ps
	var res RunResult
	if err := r.answer(ctx, args, strings.NewReader(prompt), &res, func() bool { return res.Status != "" }); err != nil {
		return nil, err
	}
	return &res, nil
}

// answer runs csa with args and decodes its --json answer into v; ok
// says whether v holds an answer. With none, csa's own error is the error.
func (r *Runner) answer(ctx context.Context, args []string, stdin io.Reader, v any, ok func() bool) error {
	c, err := proc.Capture(ctx, proc.Spec{Path: r.Exe, Args: args, Env: r.Env, Dir: r.Dir, Stdin: stdin, DieWithParent: true}, r.Grace)
	if c == nil {
		return fmt.Errorf("start csa %s: %w", args[0], err)
	}
	if jerr := json.Unmarshal(bytes.TrimSpace(c.Stdout), v); jerr != nil || !ok() {
		if err != nil {
			return err
		}
		return fmt.Errorf("csa %s exited %d: %s", args[0], c.ExitCode, childError(c.Stderr))
	}
	return nil
}

// childError is a child csa's JSON error as "message (code)", else the
// last line of its stderr.
func childError(stderr string) string {
	code, msg := errline.Parse(stderr)
	if code != "" {
		msg += " (" + code + ")"
	}
	return msg
}

// Failed reports why a finished run gives no usable answer, "" when it
// completed.
func (r *RunResult) Failed() string {
	if r.Status == session.Completed {
		return ""
	}
	if r.Failure != nil && r.Failure.Message != "" {
		return fmt.Sprintf("%s: %s (%s)", r.Status, r.Failure.Message, r.Failure.Class)
	}
	return string(r.Status)
}

// ReviewSession runs `csa review --session id --json`: the report, with
// the review's exit status in it.
func (r *Runner) ReviewSession(ctx context.Context, id string) (*Report, error) {
	args := []string{"review", "--json", "--session", id}
	if r.Timeout > 0 {
		args = append(args, "--timeout", r.Timeout.String())
	}
	var rep Report
	if err := r.answer(ctx, args, nil, &rep, func() bool { return rep.Verdict != "" }); err != nil {
		return nil, err
	}
	return &rep, nil
}
