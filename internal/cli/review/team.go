package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Team is what `csa review` and `csa debate` share: the project, its
// configuration, the caller, and the tools that may be asked.
type Team struct {
	F            *cmdutil.Factory
	Cwd, Root    string
	Cfg          *config.Config
	Parent       *runner.Parent
	Caller       agents.Tool // "" when csa is not called from an agent
	CallerFamily string
	Cands        []review.Candidate
	Skipped      []string
}

// NewTeam reads the project, its configuration and the caller.
func NewTeam(f *cmdutil.Factory) (*Team, error) {
	parent, err := f.Parent()
	if err != nil {
		return nil, err
	}
	cwd, err := filepath.Abs(".")
	if err != nil {
		return nil, err
	}
	root, err := f.ProjectRoot(cwd)
	if err != nil {
		return nil, err
	}
	loaded, err := f.Config(root)
	if err != nil {
		return nil, err
	}
	store, err := f.Store(root)
	if err != nil {
		return nil, err
	}
	f.ForgetGoneParent(parent, store)
	t := &Team{F: f, Cwd: cwd, Root: root, Cfg: &loaded.Config, Parent: parent}
	// The caller's tool: CSA_TOOL, else the nearest agent program among
	// csa's ancestors.
	t.Caller, _ = agents.DetectParent(f.Getenv)
	if t.Caller != "" {
		t.CallerFamily = t.Cfg.Family(t.Caller)
	}
	t.Cands, t.Skipped = review.Candidates(t.Cfg)
	return t, nil
}

// Refused turns a selection error into csa's "refused before start".
func Refused(err error) error {
	var nt *review.NoToolError
	if errors.As(err, &nt) {
		return cmdutil.Refused("no_heterogeneous_tool", err)
	}
	return err
}

// CheckDepth refuses when the sub-agents, one level below the review's or
// debate's own session, would be deeper than max_recursion_depth.
func (t *Team) CheckDepth(kind string) error {
	own := 0
	if t.Parent != nil {
		own = t.Parent.Depth + 1
	}
	if own+1 > t.Cfg.MaxRecursionDepth {
		return cmdutil.Refused("depth_limit", fmt.Errorf(
			"recursion depth limit reached: the %s's sub-agents would be at depth %d, max_recursion_depth is %d",
			kind, own+1, t.Cfg.MaxRecursionDepth))
	}
	return nil
}

// Crew is a running review or debate: its own session, the runner of its
// sub-agents, and a context that ends on SIGINT/SIGTERM/SIGHUP or on
// `csa kill` of the session.
type Crew struct {
	Sess   *review.Session
	Runner *review.Runner
	Ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	f      *cmdutil.Factory
	kind   string
}

// Begin creates the session and starts watching for `csa kill`; the
// crew's context also ends with ctx (an interrupt).
func (t *Team) Begin(ctx context.Context, kind string, args []string, prompt string, timeout time.Duration) (*Crew, error) {
	store, err := t.F.Store(t.Root)
	if err != nil {
		return nil, err
	}
	exe, err := t.F.Executable()
	if err != nil {
		return nil, fmt.Errorf("find csa itself: %w", err)
	}
	sess, err := review.Begin(store, review.Meta{
		Kind: kind, Parent: t.Parent, ProjectRoot: t.Root, Cwd: t.Cwd, Program: exe,
		Args: append([]string{kind}, args...), Prompt: prompt,
	}, t.F.Now)
	if err != nil {
		return nil, err
	}
	c := &Crew{Sess: sess, done: make(chan struct{}), f: t.F, kind: kind}
	c.Runner = &review.Runner{
		Exe: exe, Env: runner.ChildEnv(t.F.Environ(), sess.State, sess.Dir(), nil), Dir: t.Cwd, Timeout: timeout,
		// Each child csa stops its agent within its own kill grace and
		// records the end; it gets that and a margin.
		Grace: t.Cfg.Defaults.KillGrace.Std() + 5*time.Second,
	}
	c.Ctx, c.cancel = context.WithCancelCause(ctx)
	go c.watch()
	return c, nil
}

// errKilled is the cause of a crew's context ended by `csa kill`.
var errKilled = errors.New("killed by csa kill")

func (c *Crew) watch() {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-c.Ctx.Done():
			return
		case <-tick.C:
			if c.Sess.KillRequested() {
				c.cancel(errKilled)
				return
			}
		}
	}
}

// Say records progress in the session and shows it to a person watching.
func (c *Crew) Say(msg string) {
	c.Sess.Say(msg)
	if c.f.IO.ErrTTY {
		fmt.Fprintf(c.f.IO.ErrOut, "csa %s: %s\n", c.kind, msg)
	}
}

// Interruption is why the crew was stopped, "" if it was not. A kill
// request is looked for here too: `csa kill` stops the sub-agents first,
// which may end the crew's work before the watcher sees the request.
func (c *Crew) Interruption() string {
	if c.Ctx.Err() == nil && c.Sess.KillRequested() {
		c.cancel(errKilled)
	}
	if cause := context.Cause(c.Ctx); cause != nil {
		return cause.Error()
	}
	return ""
}

// End records the session's end: completed on exit 0, failed (with
// class) otherwise, killed when it was interrupted. It returns csa's exit
// status.
func (c *Crew) End(exit int, result, class string) int {
	close(c.done)
	e := review.Ending{Status: session.Completed, ExitCode: exit, Result: result}
	if why := c.Interruption(); why != "" {
		cls := session.FailInterrupted
		if errors.Is(context.Cause(c.Ctx), errKilled) {
			cls = session.FailKilled
		}
		exit = cmdutil.ExitInterrupted
		e = review.Ending{Status: session.Killed, ExitCode: exit, Result: result, Failure: &session.Failure{Class: cls, Message: why}}
	} else if exit != 0 {
		e.Status, e.Failure = session.Failed, &session.Failure{Class: class, Message: result}
	}
	c.cancel(nil)
	if _, err := c.Sess.End(e); err != nil {
		fmt.Fprintf(c.f.IO.ErrOut, "csa %s: recording the end of session %s: %v\n", c.kind, c.Sess.ID(), err)
	}
	return exit
}

// Finish ends the crew's session with its report: the text is said in the
// session's events and printed (or the report as JSON), the report saved
// as file, and the exit status returned as csa's.
func (c *Crew) Finish(file string, report any, text string, exit int, summary, class string) error {
	c.Say(strings.TrimRight(text, "\n"))
	saveErr := c.Sess.SaveJSON(file, report)
	code := c.End(exit, summary, class)
	if saveErr != nil {
		return fmt.Errorf("save %s: %w", file, saveErr)
	}
	if c.f.JSON {
		if err := c.f.IO.PrintJSON(report); err != nil {
			return err
		}
	} else {
		io.WriteString(c.f.IO.Out, text)
	}
	if code != 0 {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}
