package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/taskgraph"
)

// DefaultShellTimeout bounds a shell step that gives no Timeout.
const DefaultShellTimeout = time.Hour

// exec runs one attempt of a step: its body expanded now, with the
// results so far. A failure goes into res; an error is an interrupt or a
// journal that cannot be written.
func (r *runtime) exec(ctx context.Context, s *Step, tool string, res *Result, sid string, started func(id string) error) error {
	switch s.Kind {
	case KindShell:
		script, err := Expand(s.Body, r.lookup, true)
		if err != nil {
			res.Failure = &Failure{Class: "substitution", Message: err.Error()}
			return nil
		}
		return r.shell(ctx, s, script, res)
	case KindReview, KindDebate:
		return r.crew(ctx, s, res)
	}
	prompt, err := Expand(s.Body, r.lookup, false)
	if err != nil {
		res.Failure = &Failure{Class: "substitution", Message: err.Error()}
		return nil
	}
	return r.agent(ctx, s, tool, prompt, res, sid, started)
}

func (r *runtime) childEnv(key string) []string {
	return append(append([]string(nil), r.env.Environ...), csaenv.WorkflowRun+"="+r.info.ID, csaenv.WorkflowStep+"="+key)
}

// shell runs the script with sh -c in its own process group, bounded by
// the step's Timeout; stdout is its output, the tail of stderr explains a
// failure.
func (r *runtime) shell(ctx context.Context, s *Step, script string, res *Result) error {
	timeout := DefaultShellTimeout
	if s.Timeout != "" {
		timeout, _ = time.ParseDuration(s.Timeout)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errStepTimeout)
	defer cancel()
	c, err := proc.Capture(tctx, proc.Spec{Path: "/bin/sh", Args: []string{"-c", script},
		Env: r.childEnv(res.Key), Dir: r.info.Dir, DieWithParent: true}, r.env.Grace)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if c == nil {
		res.Failure = &Failure{Class: session.FailStart, Message: err.Error()}
		return nil
	}
	res.Output = strings.TrimRight(string(c.Stdout), "\n")
	res.ExitCode = &c.ExitCode
	res.Verdict = review.Pass
	switch {
	case errors.Is(context.Cause(tctx), errStepTimeout):
		res.Failure = &Failure{Class: session.FailTimeout, Message: fmt.Sprintf("timed out after %s%s", timeout, tail(c.Stderr))}
	case c.ExitCode != 0:
		res.Failure = &Failure{Class: "exit_status", Message: fmt.Sprintf("exit status %d%s", c.ExitCode, tail(c.Stderr))}
	}
	if res.Failure != nil {
		res.Verdict = review.Fail
	}
	return nil
}

var errStepTimeout = errors.New("the step's timeout passed")

// tail is the last lines of a step's stderr, for its failure message.
func tail(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	if t := strings.TrimSpace(strings.Join(lines, "\n")); t != "" {
		return "; stderr: " + t
	}
	return ""
}

// agent launches a detached csa run as session sid, which the journal
// named before (so the session outlives a killed workflow, and a resume
// waits for it instead of starting it again), records that it started,
// and waits for its end. A launch that finds sid exists (an earlier
// process of the run launched it) waits for it.
func (r *runtime) agent(ctx context.Context, s *Step, tool, prompt string, res *Result, sid string, started func(string) error) error {
	// A tool named (by the step, the front matter or a delegation) is
	// run with the model given; otherwise the tier picks both.
	// A tier picks the model too: the front matter's model goes with a
	// tool only (csa run --tier would ignore it).
	tier, model := "", orDefault(s.Model, r.info.Plan.Model)
	if tool == "" {
		tier = orDefault(s.Tier, r.info.Plan.Tier)
	}
	if tier != "" {
		model = ""
	}
	var timeout time.Duration
	if s.Timeout != "" {
		timeout, _ = time.ParseDuration(s.Timeout) // checked by the compiler
	}
	worktree := s.Worktree
	if worktree == nil && r.info.Plan.Worktree {
		worktree = &r.info.Plan.Worktree
	}
	isolate := orDefault(s.Isolate, r.info.Plan.Isolate)
	var base string
	if s.Base != 0 {
		on := true
		worktree = &on
		var err error
		if base, err = r.baseHead(ctx, s.Base); err != nil {
			res.Failure = &Failure{Class: FailNoBase, Message: err.Error()}
			return nil
		}
	}
	l := taskgraph.Launcher{Exe: r.env.Exe, Env: r.childEnv(res.Key), Dir: r.info.Dir, Grace: r.env.Grace}
	err := l.Launch(ctx, sid, taskgraph.Spec{Prompt: prompt, Tool: tool, Tier: tier, Model: model, Timeout: timeout, Worktree: worktree, WorktreeBase: base, Isolate: isolate, MaxCostUSD: r.info.Plan.MaxCostUSD}, false)
	var child *taskgraph.ChildError
	switch {
	case errors.Is(err, taskgraph.ErrSessionExists):
		r.say("step %s '%s': waiting for session %s, started before the resume", res.Key, s.Title, sid)
		return r.waitAgent(ctx, sid, res)
	case err != nil && ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.As(err, &child):
		code := child.ExitCode
		res.Failure = &Failure{Class: orDefault(child.Code, "csa_failed"), Message: child.Message, ExitCode: &code}
		return nil
	case err != nil:
		res.Failure = &Failure{Class: session.FailStart, Message: err.Error()}
		return nil
	}
	res.SessionID = sid
	if err := started(sid); err != nil {
		return err
	}
	return r.waitAgent(ctx, sid, res)
}

// FailNoBase is a step whose Base step left no recorded branch to start
// from (it did not run, ran in the caller's tree, or its change was not
// recorded).
const FailNoBase = "no_base"

// baseHead is the commit a step with Base: steps.N starts from: the head
// recorded on the branch of step N's latest run, which has ended (steps
// run in order), so its session's workspace record is final.
func (r *runtime) baseHead(ctx context.Context, num int) (string, error) {
	prev := r.latest[num]
	if prev == nil || prev.SessionID == "" {
		return "", fmt.Errorf("Base: step %d has no run to build on", num)
	}
	st, err := r.env.Session(ctx, prev.SessionID)
	if err != nil {
		return "", fmt.Errorf("Base: step %d's session %s: %v", num, prev.SessionID, err)
	}
	if ws := st.Workspace; ws == nil || !ws.Recorded || ws.Head == "" {
		return "", fmt.Errorf("Base: step %d's session %s has no recorded branch (it ran without a worktree, or its change was not recorded)", num, prev.SessionID)
	}
	return st.Workspace.Head, nil
}

// waitAgent waits for the session's end and takes its result: the answer
// as output, the verdict of a verdict block in it, and its failure.
func (r *runtime) waitAgent(ctx context.Context, id string, res *Result) error {
	res.SessionID = id
	poll := r.env.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		st, err := r.env.Session(ctx, id)
		if err != nil {
			res.Failure = &Failure{Class: "lost", Message: fmt.Sprintf("session %s: %v", id, err)}
			return nil
		}
		if st.Status.Ended() {
			res.Output, res.ExitCode = strings.TrimRight(st.Result, "\n"), st.ExitCode
			if b, ok := review.ParseReview(st.Result); ok {
				res.Verdict = b.Verdict
			} else if b, ok := review.ParseDebate(st.Result); ok {
				res.Verdict = b.Verdict
			}
			if st.Status != session.Completed {
				f := &Failure{Class: string(st.Status), Message: st.Reason}
				if st.Failure != nil {
					f.Class, f.Message = st.Failure.Class, st.Failure.Message
				}
				res.Failure = f
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// crew runs csa review or csa debate with --json: the report is the
// output, its verdict the step's. A verdict, fail and reject included,
// completes the step; no consensus or no verdict fails it.
func (r *runtime) crew(ctx context.Context, s *Step, res *Result) error {
	args := []string{string(s.Kind), "--json"}
	if s.Timeout != "" {
		args = append(args, "--timeout", s.Timeout)
	}
	words := strings.Fields(s.Body)
	if s.Kind == KindDebate {
		words = []string{s.Body}
	}
	for _, w := range words {
		v, err := Expand(w, r.lookup, false)
		if err != nil {
			res.Failure = &Failure{Class: "substitution", Message: err.Error()}
			return nil
		}
		args = append(args, v) // one argument each: never split or reparsed
	}
	c, err := proc.Capture(ctx, proc.Spec{Path: r.env.Exe, Args: args, Env: r.childEnv(res.Key), Dir: r.info.Dir, DieWithParent: true}, r.env.Grace)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var rep struct {
		SessionID string `json:"session_id"`
		Verdict   string `json:"verdict"`
	}
	if c == nil || json.Unmarshal(bytes.TrimSpace(c.Stdout), &rep) != nil || rep.Verdict == "" {
		res.Failure = childFailure(c, err)
		return nil
	}
	res.Output, res.Verdict, res.SessionID, res.ExitCode = strings.TrimSpace(string(c.Stdout)), rep.Verdict, rep.SessionID, &c.ExitCode
	if c.ExitCode != 0 && c.ExitCode != 1 {
		res.Failure = &Failure{Class: "no_verdict", Message: fmt.Sprintf("%s ended %s (exit %d)", s.Kind, rep.Verdict, c.ExitCode)}
	}
	return nil
}

// childFailure explains a child csa that gave no answer: its JSON error
// (code and message), else the tail of its stderr.
func childFailure(c *proc.Captured, err error) *Failure {
	if c == nil {
		return &Failure{Class: session.FailStart, Message: err.Error()}
	}
	code := c.ExitCode
	if class, msg := errline.Parse(c.Stderr); class != "" {
		return &Failure{Class: class, Message: msg, ExitCode: &code}
	}
	return &Failure{Class: "csa_failed", Message: fmt.Sprintf("csa exited %d%s", code, tail(c.Stderr)), ExitCode: &code}
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
